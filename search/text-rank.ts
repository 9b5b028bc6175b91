// PostgreSQL's ts_rank(document, query, 1) for an OR query of prefix terms, split in two halves so
// the document half is computed once per track and the query half is a sum over postings:
//   rank = (sum over query terms, over document lexemes the term prefixes, of contribution) / terms
//          / log2(document length + 1)
// Each step follows tsrank.c (calc_rank_or, calc_rank), including its float (32-bit) arithmetic,
// so scores equal what the SQL query `ts_rank(search_document, to_tsquery(...), 1)` returns.
const f32 = Math.fround;

/** ts_rank's default weights of D, C, B, A, as float. */
const WEIGHT_OF = { D: f32(0.1), C: f32(0.2), B: f32(0.4), A: f32(1.0) } as const;
const PI_SQUARED_OVER_6 = 1.64493406685;

export interface DocumentLexeme {
  lexeme: string;
  /** Weight of each position, in stored (position) order; one 0.1 when the entry has no positions. */
  weights: number[];
}

/**
 * Parses the text form of a tsvector ("'acoust':5B 'dark':1A,7C 'x'") into its lexemes in stored
 * order, and its length in ts_rank's sense (positions, or 1 for an entry without positions).
 */
export function parseTsvector(text: string): { lexemes: DocumentLexeme[]; length: number } {
  const lexemes: DocumentLexeme[] = [];
  let length = 0;
  let i = 0;
  while (i < text.length) {
    if (text[i] !== "'") {
      i++;
      continue;
    }
    let lexeme = '';
    i++;
    for (;;) {
      const ch = text[i];
      if (ch === '\\') {
        lexeme += text[i + 1];
        i += 2;
      } else if (ch === "'" && text[i + 1] === "'") {
        lexeme += "'";
        i += 2;
      } else if (ch === "'" || ch === undefined) {
        i++;
        break;
      } else {
        lexeme += ch;
        i++;
      }
    }
    const weights: number[] = [];
    if (text[i] === ':') {
      i++;
      while (i < text.length && text[i] !== ' ') {
        while (text[i] >= '0' && text[i] <= '9') i++;
        const letter = text[i];
        if (letter === 'A' || letter === 'B' || letter === 'C' || letter === 'D') {
          weights.push(WEIGHT_OF[letter]);
          i++;
        } else weights.push(WEIGHT_OF.D);
        if (text[i] === ',') i++;
      }
    }
    length += weights.length || 1;
    lexemes.push({ lexeme, weights: weights.length ? weights : [WEIGHT_OF.D] });
  }
  return { lexemes, length };
}

/** One document lexeme's share of calc_rank_or (before the division by the number of terms). */
export function lexemeContribution(weights: number[]): number {
  let sum = 0; // resj: weights damped by 1/j^2 over occurrences
  let maxWeight = -1; // wjm
  let maxAt = 0; // jm
  for (let j = 0; j < weights.length; j++) {
    sum = f32(sum + f32(weights[j] / ((j + 1) * (j + 1))));
    if (weights[j] > maxWeight) {
      maxWeight = weights[j];
      maxAt = j;
    }
  }
  return f32(f32(maxWeight + sum) - f32(maxWeight / ((maxAt + 1) * (maxAt + 1)))) / PI_SQUARED_OVER_6;
}

/** Adds one contribution to a running float sum, as calc_rank_or does. */
export function addContribution(sum: number, contribution: number): number {
  return f32(sum + contribution);
}

/** ts_rank's length normalisation (method 1) of a document: log2(length + 1), computed once per document. */
export function lengthNormaliser(documentLength: number): number {
  return Math.log(documentLength + 1) / Math.log(2);
}

/** The final rank from the summed contributions: divided by the number of terms and the length normaliser. */
export function finishRank(sum: number, terms: number, normaliser: number): number {
  return f32(f32(sum / terms) / normaliser);
}
