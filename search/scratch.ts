// Per-document working space of one search, zeroed again after use (searches run one at a time on
// the thread), so a search allocates nothing in proportion to the catalog.
import { wordsFor, type DocBitset } from './doc-bitsets.ts';

export interface Scratch {
  /** Text relevance sums (text-postings.ts). */
  sums: Float64Array;
  /** Name similarities; negative: an upper bound, the exact one deferred (name-matching.ts). */
  similarities: Float64Array;
  /** Documents with a text sum or a name similarity. */
  matched: DocBitset;
}

export function createScratch() {
  const scratch: Scratch = { sums: new Float64Array(1024), similarities: new Float64Array(1024), matched: new Uint32Array(wordsFor(1024)) };
  return {
    perDocument: scratch,
    /** Makes room for `docs` documents. */
    grow(docs: number) {
      if (docs <= scratch.sums.length) return;
      let size = scratch.sums.length;
      while (size < docs) size *= 2;
      scratch.sums = new Float64Array(size);
      scratch.similarities = new Float64Array(size);
      scratch.matched = new Uint32Array(wordsFor(size));
    },
    clear(docs: number) {
      scratch.sums.fill(0, 0, docs);
      scratch.similarities.fill(0, 0, docs);
      scratch.matched.fill(0, 0, wordsFor(docs));
    },
  };
}
