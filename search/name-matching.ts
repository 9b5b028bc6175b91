// Typo-tolerant name matching: each distinct name (a track's title and artist) as a sequence of
// trigram numbers, per trigram the names that have it, and per name its tracks; a query is
// compared by pg_trgm's word similarity, computed exactly only for names that share enough of its
// trigrams to reach the threshold, once per name however many tracks carry it.
import { column, createListColumn, int32, push, type Column } from './typed-column.ts';
import { createNumbering } from './numbering.ts';
import { sequenceSimilarity, trigrams, WORD_SIMILARITY_THRESHOLD } from './trigrams.ts';
import { addDoc, hasDoc, type DocBitset } from './doc-bitsets.ts';
import type { Scratch } from './scratch.ts';

export function createNameMatching() {
  const trigramNumbers = createNumbering();
  const nameNumbers = createNumbering();
  const trigramNames: Column<Int32Array>[] = [];
  const nameTrigramsOf = createListColumn();
  // The tracks of a name as a chain: its latest document, then each document's previous one of the same name (-1: none).
  const latestDocOf = column(int32);
  const previousDocOf = column(int32);
  let mostNameTrigrams = 0; // distinct trigrams of the longest name: a longer query matches no name
  // Per-query state, reset by `finish`.
  let sharedCounts = new Uint16Array(1024); // query trigrams each name has
  let candidates = new Int32Array(1024);
  let inQuery = new Uint8Array(1024);
  let lastAt = new Int32Array(1024).fill(-1);
  const markedTrigrams: number[] = [];
  let marked = 0;
  let queryDistinctTrigrams = 0;

  function grow(names: number) {
    if (names > sharedCounts.length) {
      sharedCounts = new Uint16Array(Math.max(names, sharedCounts.length * 2));
      candidates = new Int32Array(sharedCounts.length);
    }
    if (trigramNumbers.size() > inQuery.length) {
      inQuery = new Uint8Array(Math.max(inQuery.length * 2, trigramNumbers.size()));
      lastAt = new Int32Array(inQuery.length).fill(-1);
    }
  }

  /** word_similarity of the marked query to a name; 0 below the threshold. */
  function similarity(name: number): number {
    const start = nameTrigramsOf.start.data;
    const s = sequenceSimilarity(nameTrigramsOf.values.data, start[name], start[name + 1], inQuery, queryDistinctTrigrams, lastAt);
    return s >= WORD_SIMILARITY_THRESHOLD ? s : 0;
  }

  /** The candidates' lists: the names on the rarest trigrams' lists (enough to reach the threshold). */
  function countShared(nameTrigrams: Set<string>): number {
    const needed = WORD_SIMILARITY_THRESHOLD * nameTrigrams.size - 1e-6;
    const lists = [...nameTrigrams].map((t) => {
      const n = trigramNumbers.find(t);
      const names = n === undefined ? undefined : trigramNames[n];
      return { n: n ?? -1, names: names ? names.data.subarray(0, names.length) : new Int32Array(0) };
    });
    lists.sort((a, b) => a.names.length - b.names.length);
    const rarest = nameTrigrams.size - Math.ceil(needed) + 1;
    let found = 0;
    for (let l = 0; l < lists.length; l++) {
      if (l === rarest && found === 0) return 0; // no name on the rarest lists: the commoner ones cannot add one
      const names = lists[l].names;
      if (l < rarest) {
        for (let d = 0; d < names.length; d++) if (sharedCounts[names[d]]++ === 0) candidates[found++] = names[d];
      } else {
        for (let d = 0; d < names.length; d++) if (sharedCounts[names[d]] !== 0) sharedCounts[names[d]]++;
      }
    }
    for (const { n } of lists) if (n >= 0) inQuery[(markedTrigrams[marked++] = n)] = 1;
    queryDistinctTrigrams = nameTrigrams.size;
    return found;
  }

  return {
    add(doc: number, names: string) {
      const before = nameNumbers.size();
      const name = nameNumbers.number(names);
      if (name === before) {
        const sequence = trigrams(names).map(trigramNumbers.number);
        nameTrigramsOf.append(sequence);
        const distinct = new Set(sequence);
        for (const t of distinct) push((trigramNames[t] ??= column(int32, 4)), name);
        mostNameTrigrams = Math.max(mostNameTrigrams, distinct.size);
        push(latestDocOf, -1);
        grow(name + 1);
      }
      push(previousDocOf, latestDocOf.data[name]);
      latestDocOf.data[name] = doc;
    },
    /**
     * Word similarity of every live document whose name reaches the threshold, into
     * scratch.similarities; marks them matched and lists them in scratch.named.
     */
    match(nameTrigrams: Set<string>, live: DocBitset, scratch: Scratch) {
      if (nameTrigrams.size === 0 || WORD_SIMILARITY_THRESHOLD * nameTrigrams.size - 1e-6 > mostNameTrigrams) return;
      const needed = WORD_SIMILARITY_THRESHOLD * nameTrigrams.size - 1e-6;
      const found = countShared(nameTrigrams);
      const previous = previousDocOf.data;
      for (let c = 0; c < found; c++) {
        const name = candidates[c];
        const s = sharedCounts[name] >= needed ? similarity(name) : 0;
        sharedCounts[name] = 0;
        if (s === 0) continue;
        for (let doc = latestDocOf.data[name]; doc >= 0; doc = previous[doc]) {
          if (!hasDoc(live, doc)) continue;
          scratch.similarities[doc] = s;
          addDoc(scratch.matched, doc);
          scratch.named.push(doc);
        }
      }
    },
    /** Forgets the query's marks. */
    finish() {
      while (marked > 0) inQuery[markedTrigrams[--marked]] = 0;
    },
  };
}
