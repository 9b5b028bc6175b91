// Search, assembled: the music lexicon and WordNet behind query understanding, and the live
// in-memory index of the catalog that ranks with it.
import type { Sql } from '../db/connect.ts';
import { musicLexicon } from './lexicon.ts';
import { openWordNet } from './wordnet.ts';
import { createQueryUnderstanding, type QueryUnderstanding } from './understand.ts';
import { createValueMeaning } from './value-meaning.ts';
import { createLiveSearchIndex, type LiveSearchIndex } from './live-index.ts';

export interface CatalogSearch {
  index: LiveSearchIndex;
  understanding: QueryUnderstanding;
}

export function createCatalogSearch(sql: Sql): CatalogSearch {
  const understanding = createQueryUnderstanding(musicLexicon(), openWordNet());
  return { index: createLiveSearchIndex(sql, createValueMeaning(understanding)), understanding };
}
