// The documents of each tag combination (track-facts.ts tagSetOf), dead ones too, in two orders,
// each sorted when a search first needs it after a change: by id (within a combination whose
// tracks all score alike a search stops at the first track that cannot reach its page: ties go to
// the smaller id) and by tempo bin, with each document's bin beside it (a search skips the bins
// whose tempo score cannot reach its page, and a BPM range reads only its own bins).
import { column, int32, push, type Column } from './typed-column.ts';

/** A combination's documents by tempo bin (track-facts.ts bpmBinOf, -1: none), ascending. */
export interface ByTempo {
  docs: Int32Array;
  bins: Int32Array;
}

/** Documents in id order, put in order of their bins (counting sort: stable, so in a bin by id). */
function byBin(inIdOrder: Int32Array, binOf: Int32Array): ByTempo {
  let most = -1;
  for (const doc of inIdOrder) most = Math.max(most, binOf[doc]);
  const starts = new Int32Array(most + 3); // by bin + 2: -1 (none) is 1
  for (const doc of inIdOrder) starts[binOf[doc] + 2]++;
  for (let b = 1; b < starts.length; b++) starts[b] += starts[b - 1];
  const docs = new Int32Array(inIdOrder.length);
  const bins = new Int32Array(inIdOrder.length);
  for (const doc of inIdOrder) {
    const at = starts[binOf[doc] + 1]++;
    docs[at] = doc;
    bins[at] = binOf[doc];
  }
  return { docs, bins };
}

/** The first position in sorted[from, to) whose value exceeds `value`. */
export function firstAbove(sorted: Int32Array, value: number, from: number, to: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function createTagGroups(before: (a: number, b: number) => boolean) {
  const lists: Column<Int32Array>[] = [];
  const unsorted = new Set<number>();
  const tempoUnsorted = new Set<number>();
  const byTempo: ByTempo[] = [];
  const retired: number[] = []; // per combination, its retired documents
  const order = (a: number, b: number) => (before(a, b) ? -1 : before(b, a) ? 1 : 0);
  const empty = new Int32Array(0);
  /** The documents of a combination (dead ones too: callers test them against their filter bitset), in id order. */
  function docs(tagSet: number): Int32Array {
    const list = lists[tagSet];
    if (!list) return empty;
    const inOrder = list.data.subarray(0, list.length);
    if (unsorted.delete(tagSet)) inOrder.sort(order);
    return inOrder;
  }
  return {
    add(doc: number, tagSet: number) {
      push((lists[tagSet] ??= column(int32, 4)), doc);
      unsorted.add(tagSet);
      tempoUnsorted.add(tagSet);
    },
    /** Notes that a document of the combination was retired. */
    retire(tagSet: number) {
      retired[tagSet] = (retired[tagSet] ?? 0) + 1;
    },
    /** Whether every document of the combination is live. */
    allLive: (tagSet: number): boolean => !retired[tagSet],
    /** How many combinations there are. */
    count: () => lists.length,
    docs,
    /** The documents of a combination by tempo bin (`binOf`: each document's), ascending; in a bin by id. */
    byTempo(tagSet: number, binOf: Int32Array): ByTempo {
      const list = lists[tagSet];
      if (!list) return { docs: empty, bins: empty };
      if (tempoUnsorted.delete(tagSet) || !byTempo[tagSet]) byTempo[tagSet] = byBin(docs(tagSet), binOf);
      return byTempo[tagSet];
    },
  };
}
