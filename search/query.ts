// A search: the query understood (understand.ts), its text words turned into PostgreSQL's
// lexemes, and the whole ranked in the in-memory index (search-index.ts), kept fresh
// (LiveSearchIndex.fresh). With intent extraction, the filters the query states outright
// (intent.ts) are merged under the explicit ones; if they leave fewer than MIN_INTENT_MATCHES
// tracks, the same ranking runs without them (worked out in the same call) and the intent says so.
import type { SearchRequest } from './request.ts';
import type { LiveSearchIndex } from './live-index.ts';
import type { IndexQuery } from './search-index.ts';
import type { QueryUnderstanding } from './understand.ts';
import type { Facets } from './facets.ts';
import { queryTrigrams } from './trigrams.ts';
import { intentOf, mergeFilters, statesFilters, type Intent } from './intent.ts';

export interface SearchResult {
  /** Best first: each track's id and its summary as JSON (live-index.ts TrackSummary, without preview_url). */
  tracks: { id: string; summary: string }[];
  total: number;
  facets?: Facets;
  intent: Intent & { applied: 'filters' | 'none' };
}

/**
 * Inferred filters that leave fewer tracks than this are dropped: a near-empty page ("headbanging"
 * with one Metal track) serves worse than the ranking without them, which puts that track first
 * anyway. A fixed number, not the page size, so every page of a search sees the same list.
 */
export const MIN_INTENT_MATCHES = 10;

/**
 * What a search asks of the index: the query understood, its text words as PostgreSQL's lexemes,
 * and with intent the filters it states (under the explicit ones, and the explicit ones alone as
 * the fallback); and the intent to report.
 */
export async function indexQueryOf(live: LiveSearchIndex, understanding: QueryUnderstanding, request: SearchRequest, useIntent: boolean) {
  const understood = understanding.understand(request.query);
  const intent = intentOf(understood, useIntent);
  const inferred = useIntent && statesFilters(intent);
  const query: IndexQuery = {
    terms: await live.terms(understood.textWords),
    nameTrigrams: queryTrigrams(request.query),
    concepts: understood.concepts,
    anything: understood.anything,
    filters: inferred ? mergeFilters(request.filters, intent) : request.filters,
    ...(inferred ? { fallback: { filters: request.filters, below: MIN_INTENT_MATCHES } } : {}),
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
    intent: { ...intent, applied: inferred && !found.fellBack ? 'filters' : 'none' },
  };
}
