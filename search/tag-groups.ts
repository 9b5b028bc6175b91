// The documents of each tag combination (track-facts.ts tagSetOf), each list in id order, sorted
// when a search first needs it after a change. A search whose query has concepts visits the
// combinations best first and stops once the rest cannot reach its page; within a combination
// whose tracks all score alike it stops at the first track that cannot (the lists are in id
// order, and ties go to the smaller id).
import { column, int32, push, type Column } from './typed-column.ts';

export function createTagGroups(before: (a: number, b: number) => boolean) {
  const lists: Column<Int32Array>[] = [];
  const unsorted = new Set<number>();
  const order = (a: number, b: number) => (before(a, b) ? -1 : before(b, a) ? 1 : 0);
  return {
    add(doc: number, tagSet: number) {
      push((lists[tagSet] ??= column(int32, 4)), doc);
      unsorted.add(tagSet);
    },
    /** The documents of a combination (dead ones too: callers test them against their filter bitset), in id order. */
    docs(tagSet: number): Int32Array {
      const list = lists[tagSet];
      if (!list) return new Int32Array(0);
      const docs = list.data.subarray(0, list.length);
      if (unsorted.delete(tagSet)) docs.sort(order);
      return docs;
    },
  };
}
