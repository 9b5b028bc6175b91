// A search: the query understood (understand.ts), its text words turned into PostgreSQL's
// lexemes, and the whole ranked in the in-memory index (search-index.ts), kept fresh
// (LiveSearchIndex.fresh). With intent extraction, the filters the query states outright
// (intent.ts) are merged under the explicit ones; if they leave fewer than MIN_INTENT_MATCHES
// tracks, the same ranking runs without them (worked out in the same call) and the intent says so.
import type { SearchRequest } from './request.ts';
import type { LiveSearchIndex } from './live-index.ts';
import type { Ranking } from './search-index.ts';
import type { QueryUnderstanding } from './understand.ts';
import type { Facets } from './facets.ts';
import { queryTrigrams } from './trigrams.ts';
import { intentOf, mergeFilters, statesFilters, type Intent } from './intent.ts';

/** A track as search results show it: the spec's fields (2.1) plus peak_seconds and preview_url. */
export interface TrackSummary {
  id: string;
  title: string;
  artist: string;
  duration_seconds: number;
  bpm: number | null;
  key: string | null;
  genre: string | null;
  subgenres: string[];
  moods: string[];
  has_vocals: boolean | null;
  energy_level: string | null;
  instruments: string[];
  peak_seconds: number;
  preview_url: string;
}

export interface SearchResult {
  /** Best first: each track's id and its summary as JSON (a TrackSummary without preview_url). */
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

export async function searchTracks(live: LiveSearchIndex, understanding: QueryUnderstanding, request: SearchRequest & { facets?: boolean }, useIntent: boolean): Promise<SearchResult> {
  const understood = understanding.understand(request.query);
  const intent = intentOf(understood, useIntent);
  const inferred = useIntent && statesFilters(intent);
  const terms = await live.terms(understood.textWords);
  const found = await live.fresh((index) => index.search({
    terms,
    nameTrigrams: queryTrigrams(request.query),
    concepts: understood.concepts,
    anything: understood.anything,
    filters: inferred ? mergeFilters(request.filters, intent) : request.filters,
    fallback: inferred ? request.filters : undefined,
    fallbackBelow: MIN_INTENT_MATCHES,
    want: request.offset + request.limit,
    facets: request.facets,
  }));
  const used: Ranking = found.fallback ?? found;
  return {
    tracks: used.top.slice(request.offset),
    total: used.total,
    ...(used.facets ? { facets: used.facets } : {}),
    intent: { ...intent, applied: inferred && !found.fallback ? 'filters' : 'none' },
  };
}
