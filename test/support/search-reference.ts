// The search ranking as one PostgreSQL statement: ts_rank over the GIN-indexed tsvector plus
// pg_trgm word similarity on names, ties by id. What the in-memory index must reproduce (tests),
// and the reference it is timed against (bench).
import type { Sql } from '../../db/connect.ts';
import { words as wordsOf } from '../../search/trigrams.ts';

export function referenceSearch(sql: Sql, query: string, where = sql`true`, limit = 50) {
  const words = [...new Set(wordsOf(query))];
  const tsquery = words.map((w) => `'${w}':*`).join(' | ');
  const raw = query.toLowerCase();
  return sql<{ id: string; score: number; total: number }[]>`
    SELECT id, score, count(*) OVER ()::int AS total FROM (
      SELECT t.id, coalesce(ts_rank(t.search_document, q.q, 1), 0)
                   + 0.5 * CASE WHEN ${raw} <% t.search_names THEN word_similarity(${raw}, t.search_names) ELSE 0 END AS score
        FROM tracks t, (SELECT to_tsquery('english', ${tsquery}) AS q) q
       WHERE t.removed_at IS NULL AND (t.search_document @@ q.q OR ${raw} <% t.search_names) AND ${where}) m
     ORDER BY score DESC, id LIMIT ${limit}`;
}
