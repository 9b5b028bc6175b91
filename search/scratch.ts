// Per-document working space of one search, zeroed again after use (searches run one at a time on
// the thread), so a search allocates nothing in proportion to the catalog.
import { wordsFor, type DocBitset } from './doc-bitsets.ts';

export interface Scratch {
  /** Text relevance sums (text-postings.ts). */
  sums: Float64Array;
  /** Whether any sum was added to (else `sums` is all 0 still). */
  summed: boolean;
  /** Name similarities (name-matching.ts; 0: none). */
  similarities: Float64Array;
  /** Documents with a text sum or a name similarity. */
  matched: DocBitset;
  /** The documents with a name similarity, in no particular order. */
  named: number[];
  /** Per tag combination, the largest text sum of its documents (text-postings.ts). */
  groupTextMax: Float64Array;
}

export function createScratch() {
  const scratch: Scratch = { sums: new Float64Array(1024), summed: false, similarities: new Float64Array(1024), matched: new Uint32Array(wordsFor(1024)), named: [], groupTextMax: new Float64Array(64) };
  return {
    perDocument: scratch,
    /** Makes room for `groups` tag combinations. */
    growGroups(groups: number) {
      if (groups > scratch.groupTextMax.length) scratch.groupTextMax = new Float64Array(groups * 2);
    },
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
      if (scratch.summed) scratch.sums.fill(0, 0, docs);
      scratch.summed = false;
      for (const doc of scratch.named) scratch.similarities[doc] = 0;
      scratch.matched.fill(0, 0, wordsFor(docs));
      scratch.named.length = 0;
      scratch.groupTextMax.fill(0);
    },
  };
}
