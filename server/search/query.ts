// A search: full-text relevance (PostgreSQL's weighted tsvector and ts_rank, OR of the query's
// words, each a prefix) plus pg_trgm word similarity on title and artist for typos, filtered,
// ordered by score, ties by id. Scoring runs in the in-memory index; rows come from PostgreSQL.
import type { Sql } from '../db/connect.ts';
import type { SearchRequest } from './validate.ts';
import type { LiveSearchIndex } from './live-index.ts';
import { queryTrigrams } from './trigrams.ts';

export interface TrackResult {
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
  score: number;
}

/**
 * Ranks in the in-memory index (see search-index.ts), then reads the page's rows from PostgreSQL,
 * together with the newest search revision: if the catalog changed since the index last read it,
 * the index catches up and the search runs again, so a search never misses a committed change.
 */
export async function searchTracks(sql: Sql, live: LiveSearchIndex, request: SearchRequest): Promise<{ tracks: TrackResult[]; total: number }> {
  const terms = await live.terms(request.query);
  const nameTrigrams = queryTrigrams(request.query);
  for (let attempt = 0; ; attempt++) {
    const index = await live.current();
    const { total, top } = index.search(terms, nameTrigrams, request.filters, request.offset + request.limit);
    const page = top.slice(request.offset);
    const rows = await sql<(Omit<TrackResult, 'score'> & { revision: string })[]>`
      SELECT r.revision, t.id, t.title, t.artist, t.duration_seconds, t.bpm, t.key, t.genre, t.subgenres, t.moods,
             t.has_vocals, t.energy_level, t.instruments, t.peak_seconds
        FROM (SELECT coalesce(max(search_revision), 0) AS revision FROM tracks) r
        LEFT JOIN tracks t ON t.id = ANY(${page.map((p) => p.id)}::text[]) AND t.removed_at IS NULL`;
    if (Number(rows[0].revision) > live.revision() && attempt === 0) {
      await live.catchUp();
      continue;
    }
    const byId = new Map(rows.filter((r) => r.id !== null).map(({ revision: _revision, ...track }) => [track.id, track]));
    const tracks = page.flatMap(({ id, score }) => {
      const track = byId.get(id);
      return track ? [{ ...track, score }] : [];
    });
    return { tracks, total };
  }
}

/** Mood and instrument values used by the catalog (beyond the spec's lists), refreshed each minute. */
export function catalogVocabulary(sql: Sql) {
  let cached: { at: number; value: { moods: string[]; instruments: string[] } } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < 60_000) return cached.value;
    const [row] = await sql`
      SELECT coalesce((SELECT array_agg(DISTINCT m) FROM tracks, unnest(moods) m), '{}') AS moods,
             coalesce((SELECT array_agg(DISTINCT i) FROM tracks, unnest(instruments) i), '{}') AS instruments`;
    cached = { at: Date.now(), value: { moods: row.moods, instruments: row.instruments } };
    return cached.value;
  };
}
