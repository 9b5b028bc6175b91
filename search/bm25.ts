// Okapi BM25 over a track's fields, weighted (BM25F in its simple form): a lexeme's frequency in
// a document is the sum of its positions' field weights, and the document's length the sum over
// all its positions. A lexeme's weight in the catalog (idf) falls with the share of documents
// that carry it, so a rare, distinctive word ("ukulele", "christmas") outweighs a common one
// ("video", "ad") however both are spelled in a query.
import type { WeightClass } from './tsvector.ts';

/**
 * Field weight of a position by its tsvector class (migration 010): A title and artist, B genre,
 * subgenres, moods and instruments, C description. Tags are what a track is filed under; a word
 * of the library's copy says less.
 */
export const FIELD_WEIGHT: Record<WeightClass, number> = { A: 1, B: 1, C: 0.5, D: 0.5 };
/** Term-frequency saturation: a second mention adds less than the first. */
export const BM25_K1 = 1.2;
/** Length normalisation: half way, since track documents are all short and alike in length. */
export const BM25_B = 0.5;

/** Weight of a lexeme carried by `df` of `n` documents (the BM25 idf, never negative). */
export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** The saturated frequency part of BM25 for a frequency `tf` in a document of `length` (average `average`). */
export function saturatedFrequency(tf: number, length: number, average: number): number {
  return saturatedWith(tf, lengthPart(length, average));
}

/** The part of saturatedFrequency's denominator that a document's length decides (a search works it out once per length). */
export function lengthPart(length: number, average: number): number {
  return BM25_K1 * (1 - BM25_B + (BM25_B * length) / average);
}

/** saturatedFrequency from the length part. */
export function saturatedWith(tf: number, lengthPart: number): number {
  return (tf * (BM25_K1 + 1)) / (tf + lengthPart);
}

/** A lexeme's frequency and a document's length from the weight classes of their positions. */
export function weightedCount(classes: WeightClass[]): number {
  let sum = 0;
  for (const c of classes) sum += FIELD_WEIGHT[c];
  return sum;
}
