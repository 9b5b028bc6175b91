// A search: the query understood (understand.ts), its text words turned into PostgreSQL's
// lexemes, and the whole ranked in the in-memory index (search-index.ts), kept fresh
// (LiveSearchIndex.fresh). With intent extraction, the values the query states outright
// (intent.ts) are ranked as one more concept: they lift the tracks that carry them and leave none
// out. Only the request's filters exclude.
import type { SearchRequest } from './request.ts';
import type { LiveSearchIndex } from './live-index.ts';
import type { IndexQuery } from './search-index.ts';
import type { QueryUnderstanding } from './understand.ts';
import type { Facets } from './facets.ts';
import { queryTrigrams } from './trigrams.ts';
import { tokens } from './tokens.ts';
import { queryPhraseTerms } from './tag-phrases.ts';
import { intentBoost, intentOf, statesValues, type Intent } from './intent.ts';

/** Weight of the stated values' concept beside each concept the query names (1): a lift, not the query's meaning. */
export const INTENT_STRENGTH = 0.25;

export interface SearchResult {
  /** Best first: each track's id and its summary as JSON (live-index.ts TrackSummary, without preview_url). */
  tracks: { id: string; summary: string }[];
  total: number;
  facets?: Facets;
  intent: Intent & { applied: 'filters' | 'none' };
}

/**
 * What a search asks of the index: the query understood, its text words as PostgreSQL's lexemes,
 * the request's filters, and with intent the values it states as a concept of INTENT_STRENGTH;
 * and the intent to report.
 */
export async function indexQueryOf(live: LiveSearchIndex, understanding: QueryUnderstanding, request: SearchRequest, useIntent: boolean) {
  const understood = understanding.understand(request.query);
  const intent = intentOf(understood, useIntent);
  const inferred = useIntent && statesValues(intent);
  const boost = { concept: intentBoost(intent), phrase: 'intent', negated: false, strength: INTENT_STRENGTH };
  const query: IndexQuery = {
    terms: [...(await live.terms(understood.textWords)), ...queryPhraseTerms(understood.textWords)],
    nameTrigrams: queryTrigrams(request.query),
    concepts: inferred ? [...understood.concepts, boost] : understood.concepts,
    conceptTerms: await Promise.all(understood.concepts.map((c) => (c.negated ? [] : live.terms(tokens(c.phrase))))),
    anything: understood.anything,
    filters: request.filters,
    want: request.offset + request.limit,
    facets: request.facets,
  };
  return { query, intent, inferred };
}

export async function searchTracks(live: LiveSearchIndex, understanding: QueryUnderstanding, request: SearchRequest, useIntent: boolean): Promise<SearchResult> {
  const { query, intent, inferred } = await indexQueryOf(live, understanding, request, useIntent);
  const found = await live.fresh((index) => index.search(query));
  return {
    tracks: found.top.slice(request.offset),
    total: found.total,
    ...(found.facets ? { facets: found.facets } : {}),
    intent: { ...intent, applied: inferred ? 'filters' : 'none' },
  };
}
