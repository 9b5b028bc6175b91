// pg_trgm's word_similarity(query, text) and its `<%` threshold, in process, so typo-tolerant name
// matching needs no database round trip. Follows trgm_op.c: words are runs of letters and digits,
// lower-cased, padded with two blanks before and one after; a trigram is three consecutive
// characters of a padded word; the similarity is the best, over stretches of the text's trigram
// sequence, of shared / (query's distinct + stretch's distinct - shared), in float (32-bit).
const f32 = Math.fround;

/** word_similarity_threshold's default (0.6, a float GUC). */
export const WORD_SIMILARITY_THRESHOLD = f32(0.6);

const WORD = /[\p{L}\p{N}]+/gu;

/** The lower-cased words of a text: runs of letters and digits, as pg_trgm (and our queries) split it. */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** The trigrams of a text, in order, repeats kept (generate_trgm_only). */
export function trigrams(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    const chars = [' ', ' ', ...Array.from(word), ' '];
    for (let i = 0; i + 2 < chars.length; i++) out.push(chars[i] + chars[i + 1] + chars[i + 2]);
  }
  return out;
}

/** The query's distinct trigrams: what a text is compared against. */
export function queryTrigrams(query: string): Set<string> {
  return new Set(trigrams(query));
}

/** Shared over union, as pg_trgm's CALCSML with DIVUNION, in float. */
function similarity(shared: number, queryDistinct: number, stretchDistinct: number): number {
  return f32(shared / (queryDistinct + stretchDistinct - shared));
}

/** word_similarity(query, text): the query's trigrams against the best stretch of the text's. */
export function wordSimilarity(query: Set<string>, text: string): number {
  // Number the text's distinct trigrams densely, and note which the query has.
  const numberOf = new Map<string, number>();
  const inQuery: number[] = [];
  const sequence = trigrams(text).map((t) => {
    let n = numberOf.get(t);
    if (n === undefined) {
      n = inQuery.length;
      numberOf.set(t, n);
      inQuery.push(query.has(t) ? 1 : 0);
    }
    return n;
  });
  return sequenceSimilarity(sequence, 0, sequence.length, inQuery, query.size, new Int32Array(inQuery.length).fill(-1));
}

/**
 * iterate_word_similarity over a text given as trigram numbers sequence[from..to): extend the
 * stretch to each trigram the query has, then try moving its start right while that raises the
 * similarity. inQuery[n] is 1 when the query has trigram n; queryDistinct counts the query's
 * distinct trigrams. lastAt (indexed by trigram number) must be -1 for the text's trigrams on entry
 * and is left so, which lets an index reuse one scratch array for every text.
 */
export function sequenceSimilarity(sequence: ArrayLike<number>, from: number, to: number, inQuery: ArrayLike<number>, queryDistinct: number, lastAt: Int32Array): number {
  let best = 0;
  let lower = -1;
  let distinct = 0;
  let shared = 0;
  for (let i = from; i < to; i++) {
    const t = sequence[i];
    if (lower >= 0 || inQuery[t]) {
      if (lastAt[t] < 0) {
        distinct++;
        if (inQuery[t]) shared++;
      }
      lastAt[t] = i;
    }
    if (!inQuery[t]) continue;
    if (lower === -1) {
      lower = i;
      distinct = 1;
    }
    let current = similarity(shared, queryDistinct, distinct);
    let tryShared = shared;
    let tryDistinct = distinct;
    const previousLower = lower;
    for (let start = lower; start <= i; start++) {
      // A later start has no more shared trigrams than now, so its similarity is at most
      // shared / queryDistinct: once that cannot beat the current one, none can.
      if (f32(tryShared / queryDistinct) <= current) break;
      const candidate = similarity(tryShared, queryDistinct, tryDistinct);
      if (candidate > current) {
        current = candidate;
        distinct = tryDistinct;
        lower = start;
        shared = tryShared;
      }
      const s = sequence[start];
      if (lastAt[s] === start) {
        tryDistinct--;
        if (inQuery[s]) tryShared--;
      }
    }
    if (current > best) best = current;
    for (let start = previousLower; start < lower; start++) {
      const s = sequence[start];
      if (lastAt[s] === start) lastAt[s] = -1;
    }
  }
  for (let i = from; i < to; i++) lastAt[sequence[i]] = -1;
  return best;
}
