// Text relevance: each track's PostgreSQL tsvector (stemmed words, weighted A title and artist,
// B genre and tags, C description) as postings, one list per lexeme carrying the lexeme's
// precomputed share of ts_rank. A search adds up the postings of its terms (each a prefix).
import { column, float64, int32, push, type Column } from './typed-column.ts';
import { addContribution, finishRank, lengthNormaliser, lexemeContribution, parseTsvector } from './text-rank.ts';
import { addDoc } from './doc-bitsets.ts';
import type { Scratch } from './scratch.ts';

interface Postings {
  docs: Column<Int32Array>;
  contributions: Column<Float64Array>;
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
  const normalisers = column(float64); // of each tsvector's length
  let vocabulary: string[] | null = null; // sorted lexemes; null when a new one arrived

  return {
    /** Adds document `doc` (the next number) with its tsvector as text. */
    add(doc: number, tsvector: string) {
      const parsed = parseTsvector(tsvector);
      push(normalisers, lengthNormaliser(parsed.length));
      for (const { lexeme, weights } of parsed.lexemes) {
        let list = postings.get(lexeme);
        if (!list) {
          postings.set(lexeme, (list = { docs: column(int32, 4), contributions: column(float64, 4) }));
          vocabulary = null;
        }
        push(list.docs, doc);
        push(list.contributions, lexemeContribution(weights));
      }
    },
    /** Adds every term's postings (each term a prefix) into scratch.sums, marking the documents matched. */
    sum(terms: string[], scratch: Scratch) {
      vocabulary ??= [...postings.keys()].sort();
      const vocab = vocabulary;
      const { sums, matched } = scratch;
      for (const term of [...terms].sort()) {
        for (let v = firstAtOrAfter(vocab, term); v < vocab.length && vocab[v].startsWith(term); v++) {
          const list = postings.get(vocab[v])!;
          const docs = list.docs.data;
          const contributions = list.contributions.data;
          for (let n = 0; n < list.docs.length; n++) {
            const doc = docs[n];
            sums[doc] = addContribution(sums[doc], contributions[n]);
            addDoc(matched, doc);
          }
        }
      }
    },
    /** ts_rank of a document from its sum. */
    rank(doc: number, sum: number, termCount: number): number {
      return sum === 0 ? 0 : finishRank(sum, termCount, normalisers.data[doc]);
    },
  };
}
