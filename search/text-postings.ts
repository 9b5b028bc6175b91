// Text relevance: each track's PostgreSQL tsvector (stemmed words, classed A title and artist,
// B genre and tags, C description) as postings, one list per lexeme carrying the lexeme's
// weighted frequency in the document (bm25.ts). A search adds up the BM25 of its terms' postings
// (each term a prefix); a document's text score is that sum over the most any document could
// score (every term met without bound by its most distinctive lexeme): in [0, 1). Documents share
// few distinct lengths, so each document keeps its length's number, and a search works out the
// length part of BM25 once per distinct length.
import { column, float32, int32, push, type Column } from './typed-column.ts';
import { BM25_K1, FIELD_WEIGHT, idf, lengthPart, saturatedWith, weightedCount } from './bm25.ts';
import { parseTsvector } from './tsvector.ts';
import { addDoc } from './doc-bitsets.ts';
import type { Scratch } from './scratch.ts';

/** A tag's phrase term counts as one mention in the tags' field (class B). */
const TAG_FIELD_WEIGHT = FIELD_WEIGHT.B;

interface Postings {
  docs: Column<Int32Array>;
  frequencies: Column<Float32Array>;
}

function firstAtOrAfter(sorted: string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function createTextPostings() {
  const postings = new Map<string, Postings>();
  const lengthNumbers = new Map<number, number>(); // a weighted length's number
  const lengthValues: number[] = []; // by number
  const lengthOf = column(int32); // each document's length's number
  let totalLength = 0;
  let vocabulary: string[] | null = null; // sorted lexemes; null when a new one arrived

  /** The lexemes a term prefixes. */
  function* lexemesOf(term: string): Generator<Postings> {
    vocabulary ??= [...postings.keys()].sort();
    const vocab = vocabulary;
    for (let v = firstAtOrAfter(vocab, term); v < vocab.length && vocab[v].startsWith(term); v++) yield postings.get(vocab[v])!;
  }

  // Each document's BM25 part is saturatedFrequency's (bm25.ts), its length part read from a table.
  function sumMarking(list: Postings, weight: number, lengthParts: Float64Array, scratch: Scratch) {
    const { sums, matched } = scratch;
    const lengthNumber = lengthOf.data;
    const docs = list.docs.data;
    const frequencies = list.frequencies.data;
    for (let k = 0; k < list.docs.length; k++) {
      const doc = docs[k];
      sums[doc] += weight * saturatedWith(frequencies[k], lengthParts[lengthNumber[doc]]);
      addDoc(matched, doc);
    }
  }

  // Sums only grow, so a combination's largest running sum is its largest final one.
  function sumPerGroup(list: Postings, weight: number, lengthParts: Float64Array, scratch: Scratch, groupOf: Int32Array) {
    const { sums, groupTextMax } = scratch;
    const lengthNumber = lengthOf.data;
    const docs = list.docs.data;
    const frequencies = list.frequencies.data;
    for (let k = 0; k < list.docs.length; k++) {
      const doc = docs[k];
      const sum = (sums[doc] += weight * saturatedWith(frequencies[k], lengthParts[lengthNumber[doc]]));
      const group = groupOf[doc];
      if (sum > groupTextMax[group]) groupTextMax[group] = sum;
    }
  }

  /** Appends `doc` with frequency `tf` to the lexeme's postings (made on first use). */
  function addPosting(lexeme: string, doc: number, tf: number) {
    let list = postings.get(lexeme);
    if (!list) {
      postings.set(lexeme, (list = { docs: column(int32, 4), frequencies: column(float32, 4) }));
      vocabulary = null;
    }
    push(list.docs, doc);
    push(list.frequencies, tf);
  }

  return {
    /**
     * Adds document `doc` (the next number) with its tsvector as text, and its tags' phrase terms
     * (tag-phrases.ts) as terms of a tag's field. A phrase repeats words the tsvector has, so it
     * does not lengthen the document.
     */
    add(doc: number, tsvector: string, phraseTerms: string[] = []) {
      let length = 0;
      for (const { lexeme, classes } of parseTsvector(tsvector)) {
        const tf = weightedCount(classes);
        length += tf;
        addPosting(lexeme, doc, tf);
      }
      for (const term of phraseTerms) addPosting(term, doc, TAG_FIELD_WEIGHT);
      const stored = Math.fround(length); // as a float32 column kept it, which the ranking's figures were made with
      let number = lengthNumbers.get(stored);
      if (number === undefined) {
        lengthNumbers.set(stored, (number = lengthValues.length));
        lengthValues.push(stored);
      }
      push(lengthOf, number);
      totalLength += length;
    },
    /**
     * Adds every term's BM25 (each term a prefix) into scratch.sums, and, with `groupOf` (each
     * document's tag combination), keeps each combination's largest sum in scratch.groupTextMax;
     * without, marks the documents in scratch.matched. Returns the query's bound: the sum of its
     * terms' best idf, times the most a saturated frequency reaches (0 when no term is in the catalog).
     */
    sum(terms: string[], scratch: Scratch, groupOf: Int32Array | null): number {
      const n = lengthOf.length;
      const average = n > 0 ? totalLength / n : 1;
      const lengthParts = Float64Array.from(lengthValues, (length) => lengthPart(length, average)); // per length number
      let ideal = 0;
      for (const term of [...terms].sort()) {
        let best = 0;
        for (const list of lexemesOf(term)) {
          const weight = idf(n, list.docs.length);
          best = Math.max(best, weight);
          if (list.docs.length > 0) scratch.summed = true;
          if (groupOf === null) sumMarking(list, weight, lengthParts, scratch);
          else sumPerGroup(list, weight, lengthParts, scratch, groupOf);
        }
        ideal += best;
      }
      return ideal * (BM25_K1 + 1);
    },
    /** How many documents the lexemes a term prefixes hold (a document under two counted twice). */
    documentCount(term: string): number {
      let count = 0;
      for (const list of lexemesOf(term)) count += list.docs.length;
      return count;
    },
    /** Visits the documents of the lexemes a term prefixes, in order, until `visit` returns false. */
    forEachDocOf(term: string, visit: (doc: number) => boolean) {
      for (const list of lexemesOf(term)) {
        const docs = list.docs.data;
        for (let k = 0; k < list.docs.length; k++) if (!visit(docs[k])) return;
      }
    },
    /** Documents added (retired ones too). */
    documents: () => lengthOf.length,
    /** A document's text score from its sum: its share of the query's bound. */
    score(sum: number, bound: number): number {
      return bound === 0 ? 0 : Math.min(1, sum / bound);
    },
  };
}
