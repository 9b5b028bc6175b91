// The search query: full-text relevance (weighted document, OR of the query's words, prefixes
// allowed) plus trigram similarity on title and artist for typos; filters as SQL conditions;
// ordered by score, ties by id. The page carries the total (a window count), so the matching
// work is done once; only a page past the end needs a separate count.
import type { Sql } from '../db/connect.ts';
import type { SearchRequest } from './validate.ts';

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

/** "Calm piano, for study!" -> "'calm':* | 'piano':* | 'for':* | 'study':*" (PostgreSQL drops stop words). */
export function orQuery(text: string): string {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].slice(0, 32).map((w) => `'${w}':*`).join(' | ');
}

export async function searchTracks(sql: Sql, request: SearchRequest): Promise<{ tracks: TrackResult[]; total: number }> {
  const f = request.filters;
  const conditions = [sql`t.removed_at IS NULL`];
  if (f.genres) conditions.push(sql`t.genre = ANY(${f.genres})`);
  if (f.moods) conditions.push(sql`t.moods && ${f.moods}::text[]`);
  if (f.instruments) conditions.push(sql`t.instruments && ${f.instruments}::text[]`);
  if (f.has_vocals !== undefined) conditions.push(sql`t.has_vocals = ${f.has_vocals}`);
  if (f.min_bpm !== undefined) conditions.push(sql`t.bpm >= ${f.min_bpm}`);
  if (f.max_bpm !== undefined) conditions.push(sql`t.bpm <= ${f.max_bpm}`);
  if (f.energy_level) conditions.push(sql`t.energy_level = ${f.energy_level}`);
  const where = conditions.reduce((all, c) => sql`${all} AND ${c}`);
  const tsquery = orQuery(request.query);
  const raw = request.query.toLowerCase();
  // Two index-driven candidate sets (full text on the GIN document, trigrams on the GIN names),
  // joined, so neither condition forces a scan of every row.
  const textHits = tsquery
    ? sql`SELECT id, ts_rank(search_document, to_tsquery('english', ${tsquery}), 1) AS rank FROM tracks WHERE search_document @@ to_tsquery('english', ${tsquery})`
    : sql`SELECT NULL::text AS id, 0::real AS rank WHERE false`;
  const nameHits = sql`SELECT id, word_similarity(${raw}, search_names) AS similarity FROM tracks WHERE ${raw} <% search_names`;
  const matched = sql`
    SELECT t.id, t.title, t.artist, t.duration_seconds, t.bpm, t.key, t.genre, t.subgenres, t.moods, t.has_vocals,
           t.energy_level, t.instruments, t.peak_seconds,
           coalesce(x.rank, 0) + 0.5 * coalesce(n.similarity, 0) AS score
      FROM (${textHits}) x
      FULL JOIN (${nameHits}) n USING (id)
      JOIN tracks t ON t.id = coalesce(x.id, n.id)
     WHERE ${where}`;
  const page = await sql<(TrackResult & { total: number })[]>`
    SELECT *, count(*) OVER ()::int AS total FROM (${matched}) m ORDER BY score DESC, id LIMIT ${request.limit} OFFSET ${request.offset}`;
  if (page.length > 0) return { tracks: page.map(({ total: _total, ...track }) => track), total: page[0].total };
  if (request.offset === 0) return { tracks: [], total: 0 };
  const [count] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM (${matched}) m`;
  return { tracks: [], total: count.n };
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
