// Sets of document numbers as bitsets (32 documents per word), one per filter value: a search
// turns its filters into one bitset (OR within a filter, AND across filters) in a few thousand
// word operations, then visits only the documents in it, instead of testing every match.
export type DocBitset = Uint32Array;

/** Words needed for `docs` documents. */
export function wordsFor(docs: number): number {
  return (docs + 31) >>> 5;
}

/** Whether the document is in the set (past its end: no). */
export function hasDoc(set: DocBitset, doc: number): boolean {
  return ((set[doc >>> 5] ?? 0) & (1 << (doc & 31))) !== 0;
}

/** Puts the document in the set (which must be long enough). */
export function addDoc(set: DocBitset, doc: number): void {
  set[doc >>> 5] |= 1 << (doc & 31);
}

/** Growable bitsets keyed by value number (a genre, a mood, ...). */
export interface ValueBitsets {
  add(value: number, doc: number): void;
  remove(value: number, doc: number): void;
  /** The bitset of a value (may be shorter than the documents: missing words are empty). */
  of(value: number): DocBitset | undefined;
}

export function createValueBitsets(): ValueBitsets {
  const sets: DocBitset[] = [];
  return {
    add(value, doc) {
      let set = sets[value];
      const word = doc >>> 5;
      if (!set || set.length <= word) {
        const bigger = new Uint32Array(Math.max(8, (word + 1) * 2));
        if (set) bigger.set(set);
        sets[value] = set = bigger;
      }
      addDoc(set, doc);
    },
    remove(value, doc) {
      const set = sets[value];
      const word = doc >>> 5;
      if (set && word < set.length) set[word] &= ~(1 << (doc & 31));
    },
    of: (value) => sets[value],
  };
}

/** OR of the given bitsets, `words` long. */
export function unionOf(sets: (DocBitset | undefined)[], words: number): DocBitset {
  const out = new Uint32Array(words);
  for (const set of sets) {
    if (!set) continue;
    const n = Math.min(words, set.length);
    for (let i = 0; i < n; i++) out[i] |= set[i];
  }
  return out;
}

/** `target` AND= `other` (missing words of `other` are empty). */
export function intersectInto(target: DocBitset, other: DocBitset): void {
  const n = Math.min(target.length, other.length);
  for (let i = 0; i < n; i++) target[i] &= other[i];
  target.fill(0, n);
}

/** How many documents are in the set. */
export function countDocs(set: DocBitset): number {
  let count = 0;
  for (let i = 0; i < set.length; i++) {
    let v = set[i] - ((set[i] >>> 1) & 0x55555555);
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    count += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return count;
}

/** Calls `visit` with each document of the set, in order. */
export function forEachDoc(set: DocBitset, visit: (doc: number) => void): void {
  for (let w = 0; w < set.length; w++) {
    for (let bits = set[w]; bits !== 0; ) {
      const low = bits & -bits;
      bits ^= low;
      visit((w << 5) + 31 - Math.clz32(low));
    }
  }
}
