// Typo-tolerant name matching: each track's title and artist as a sequence of trigram numbers,
// and per trigram the tracks whose names have it; a query is compared by pg_trgm's word
// similarity, computed exactly only for names that share enough of its trigrams to reach the
// threshold.
import { column, createListColumn, int32, push, type Column } from './typed-column.ts';
import { createNumbering } from './numbering.ts';
import { sequenceSimilarity, trigrams, WORD_SIMILARITY_THRESHOLD } from './trigrams.ts';
import { addDoc, hasDoc, type DocBitset } from './doc-bitsets.ts';
import type { Scratch } from './scratch.ts';

export function createNameMatching() {
  const trigramNumbers = createNumbering();
  const trigramDocs: Column<Int32Array>[] = [];
  const nameTrigramsOf = createListColumn();
  let mostNameTrigrams = 0; // distinct trigrams of the longest name: a longer query matches no name
  // Per-query state, reset by `finish`.
  let sharedCounts = new Uint16Array(1024); // query trigrams each name has
  let candidates = new Int32Array(1024);
  let inQuery = new Uint8Array(1024);
  let lastAt = new Int32Array(1024).fill(-1);
  const markedTrigrams: number[] = [];
  let marked = 0;
  let queryDistinctTrigrams = 0;

  function grow(docs: number) {
    if (docs > sharedCounts.length) {
      sharedCounts = new Uint16Array(Math.max(docs, sharedCounts.length * 2));
      candidates = new Int32Array(sharedCounts.length);
    }
    if (trigramNumbers.size() > inQuery.length) {
      inQuery = new Uint8Array(Math.max(inQuery.length * 2, trigramNumbers.size()));
      lastAt = new Int32Array(inQuery.length).fill(-1);
    }
  }

  /** word_similarity of the marked query to a document's names; 0 below the threshold. */
  function similarity(doc: number): number {
    const start = nameTrigramsOf.start.data;
    const s = sequenceSimilarity(nameTrigramsOf.values.data, start[doc], start[doc + 1], inQuery, queryDistinctTrigrams, lastAt);
    return s >= WORD_SIMILARITY_THRESHOLD ? s : 0;
  }

  /** The candidates' lists: the names on the rarest trigrams' lists (enough to reach the threshold). */
  function countShared(nameTrigrams: Set<string>, live: DocBitset): number {
    const needed = WORD_SIMILARITY_THRESHOLD * nameTrigrams.size - 1e-6;
    const lists = [...nameTrigrams].map((t) => {
      const n = trigramNumbers.find(t);
      const docs = n === undefined ? undefined : trigramDocs[n];
      return { n: n ?? -1, docs: docs ? docs.data.subarray(0, docs.length) : new Int32Array(0) };
    });
    lists.sort((a, b) => a.docs.length - b.docs.length);
    const rarest = nameTrigrams.size - Math.ceil(needed) + 1;
    let found = 0;
    for (let l = 0; l < lists.length; l++) {
      if (l === rarest && found === 0) return 0; // no name on the rarest lists: the commoner ones cannot add one
      const docs = lists[l].docs;
      if (l < rarest) {
        for (let d = 0; d < docs.length; d++) if (hasDoc(live, docs[d]) && sharedCounts[docs[d]]++ === 0) candidates[found++] = docs[d];
      } else {
        for (let d = 0; d < docs.length; d++) if (sharedCounts[docs[d]] !== 0) sharedCounts[docs[d]]++;
      }
    }
    for (const { n } of lists) if (n >= 0) inQuery[(markedTrigrams[marked++] = n)] = 1;
    queryDistinctTrigrams = nameTrigrams.size;
    return found;
  }

  return {
    add(doc: number, names: string) {
      const sequence = trigrams(names).map(trigramNumbers.number);
      nameTrigramsOf.append(sequence);
      const distinct = new Set(sequence);
      for (const t of distinct) push((trigramDocs[t] ??= column(int32, 4)), doc);
      mostNameTrigrams = Math.max(mostNameTrigrams, distinct.size);
      grow(doc + 1);
    },
    /**
     * Word similarity of every live name that reaches the threshold, into scratch.similarities. A
     * name the text matched already gets an upper bound instead (negated: deferred), and the exact
     * one only if that bound could bring it into the page (`similarity`).
     */
    match(nameTrigrams: Set<string>, live: DocBitset, scratch: Scratch) {
      if (nameTrigrams.size === 0 || WORD_SIMILARITY_THRESHOLD * nameTrigrams.size - 1e-6 > mostNameTrigrams) return;
      const needed = WORD_SIMILARITY_THRESHOLD * nameTrigrams.size - 1e-6;
      const found = countShared(nameTrigrams, live);
      for (let c = 0; c < found; c++) {
        const doc = candidates[c];
        if (sharedCounts[doc] >= needed) {
          if (hasDoc(scratch.matched, doc)) scratch.similarities[doc] = -Math.fround(sharedCounts[doc] / nameTrigrams.size);
          else {
            const s = similarity(doc);
            if (s > 0) {
              scratch.similarities[doc] = s;
              addDoc(scratch.matched, doc);
            }
          }
        }
        sharedCounts[doc] = 0;
      }
    },
    similarity,
    /** Forgets the query's marks. */
    finish() {
      while (marked > 0) inQuery[markedTrigrams[--marked]] = 0;
    },
  };
}
