// A search: full-text relevance (PostgreSQL's weighted tsvector and ts_rank, OR of the query's
// words, each a prefix) plus pg_trgm word similarity on title and artist for typos, filtered,
// ordered by score, ties by id. All of it runs in the in-memory index, which PostgreSQL feeds.
import type { SearchFilters, SearchRequest } from './request.ts';
import type { LiveSearchIndex } from './live-index.ts';
import type { Ranking } from './search-index.ts';
import { queryTrigrams } from './trigrams.ts';

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

/**
 * Ranks in the in-memory index (see search-index.ts), kept fresh (LiveSearchIndex.fresh); with
 * `fallback` filters, also by those when the request's filters match nothing (one scoring pass).
 */
export async function searchTracks(live: LiveSearchIndex, request: SearchRequest, fallback?: SearchFilters): Promise<SearchResult & { fallback?: SearchResult }> {
  const terms = await live.terms(request.query);
  const nameTrigrams = queryTrigrams(request.query);
  const want = request.offset + request.limit;
  const found = await live.fresh((index) => index.search(terms, nameTrigrams, request.filters, want, fallback));
  const page = ({ top, total }: Ranking): SearchResult => ({ tracks: top.slice(request.offset), total });
  return { ...page(found), ...(found.fallback ? { fallback: page(found.fallback) } : {}) };
}

export interface SearchResult {
  /** Best first: each track's id and its summary as JSON (a TrackSummary without preview_url). */
  tracks: { id: string; summary: string }[];
  total: number;
}
