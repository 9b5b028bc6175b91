// Search relevance at library scale, and on the demo catalog: the ranking the server runs (query
// understanding, the in-memory index, intent), called in process on a scratch PostgreSQL.
//   library: 3,000 tracks drawn from a committed tag distribution modelled on a public
//     music-tagging dataset (test/support/library-catalog.ts), 120 everyday queries graded from
//     tags (test/support/library-queries.ts), the tuned half and the held-out half reported apart;
//   demo: the demo generator's first 156 tracks as metadata plus the 60 production-library rows,
//     with the everyday test's 137 queries (test/search-everyday.test.ts renders 26 of those
//     tracks from audio, so its figures differ a little).
// nDCG@10, P@5 and empty pages, with intent extraction off and on.
import { connectSql, type Sql } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import { scratchDatabase } from './scratch-database.ts';
import { insertPlannedTracks, insertTrackRows } from '../test/support/catalog-rows.ts';
import { DEFAULT_SEED } from '../catalog/demo/generate.ts';
import { libraryCatalog } from '../test/support/library-catalog.ts';
import { halfOf, LIBRARY_QUERIES } from '../test/support/library-queries.ts';
import { judgeLibrary, type GradedTrack } from '../test/support/library-grading.ts';
import { LIBRARY_TRACKS } from '../test/support/library-tracks.ts';
import { EVERYDAY_QUERIES } from '../test/support/everyday-queries.ts';
import { judge, type JudgedTrack } from '../test/support/relevance.ts';
import { createCatalogSearch, type CatalogSearch } from '../search/catalog-search.ts';
import { searchTracks } from '../search/query.ts';

const PAGE = 10;

interface Scores { ndcg: number; p5: number; empty: number; count: number; worst: string[]; genres: number; crowded: number }

/** A page is crowded when one genre or one artist holds more than this many of its 10 places. */
const CROWDED_ABOVE = 5;

/** Mean nDCG@10 and P@5 of `queries`, each judged by `score` on the top PAGE ids. */
async function evaluate<Q extends { query: string }>(search: CatalogSearch, queries: Q[], intent: boolean, score: (ids: string[], q: Q) => { ndcg10: number; precision5: number }): Promise<Scores> {
  const out: Scores = { ndcg: 0, p5: 0, empty: 0, count: queries.length, worst: [], genres: 0, crowded: 0 };
  for (const q of queries) {
    const found = await searchTracks(search.index, search.understanding, { query: q.query, limit: PAGE, offset: 0, filters: {} }, intent);
    const ids = found.tracks.map((t) => t.id);
    if (ids.length === 0) out.empty++;
    const page = found.tracks.map((t) => JSON.parse(t.summary) as { genre: string; artist: string });
    out.genres += new Set(page.map((t) => t.genre)).size / queries.length;
    if (mostOfOne(page.map((t) => t.genre)) > CROWDED_ABOVE || mostOfOne(page.map((t) => t.artist)) > CROWDED_ABOVE) out.crowded++;
    const m = score(ids, q);
    out.ndcg += m.ndcg10 / queries.length;
    out.p5 += m.precision5 / queries.length;
    if (m.ndcg10 < 0.5) out.worst.push(`${q.query} ${m.ndcg10.toFixed(2)}`);
    if (process.env.RELEVANCE_DETAIL) console.log(`${m.ndcg10.toFixed(2)}  ${q.query}  ${found.tracks.slice(0, 5).map((t) => pick(JSON.parse(t.summary))).join(' ')}`);
  }
  return out;
}

function mostOfOne(values: string[]): number {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return Math.max(0, ...counts.values());
}

const pick = (t: { genre: string; subgenres: string[]; moods: string[]; instruments: string[] }) => [t.genre, ...t.subgenres, '|', ...t.moods, '|', ...t.instruments].join(' ');

const line = (label: string, s: Scores) =>
  `  ${label.padEnd(34)} nDCG@10 ${s.ndcg.toFixed(3)}  P@5 ${s.p5.toFixed(3)}  empty pages ${s.empty} of ${s.count}  ` +
  `genres per page ${s.genres.toFixed(1)}, pages with > ${CROWDED_ABOVE} of one genre or artist ${s.crowded}`;

async function libraryLines(sql: Sql): Promise<string[]> {
  const tracks = libraryCatalog();
  await insertTrackRows(sql, tracks, 'library-scale');
  const catalog = await sql<GradedTrack[]>`SELECT id, genre, subgenres, moods, instruments, energy_level, has_vocals FROM tracks WHERE removed_at IS NULL`;
  const search = createCatalogSearch(sql);
  const score = (ids: string[], q: (typeof LIBRARY_QUERIES)[number]) => judgeLibrary(ids, catalog, q.aspects);
  const tune = LIBRARY_QUERIES.filter((_, i) => halfOf(i) === 'tune');
  const held = LIBRARY_QUERIES.filter((_, i) => halfOf(i) === 'held-out');
  const lines = [`library scale: ${catalog.length} tracks (tag distribution of test/support/library-distribution.ts), ${LIBRARY_QUERIES.length} everyday queries graded from tags`];
  for (const intent of [false, true]) {
    const t = await evaluate(search, tune, intent, score);
    const h = await evaluate(search, held, intent, score);
    lines.push(line(`tuned half (${tune.length}), intent ${intent ? 'on' : 'off'}`, t));
    lines.push(line(`held-out half (${held.length}), intent ${intent ? 'on' : 'off'}`, h));
    if (!intent) lines.push(`    below 0.5: ${[...t.worst, ...h.worst].join('; ') || 'none'}`);
  }
  return lines;
}

async function demoLines(sql: Sql): Promise<string[]> {
  await insertPlannedTracks(sql, 156, DEFAULT_SEED);
  await insertTrackRows(sql, LIBRARY_TRACKS, 'library');
  const catalog = await sql<JudgedTrack[]>`SELECT id, genre, moods, instruments, energy_level, has_vocals, bpm FROM tracks WHERE removed_at IS NULL`;
  const search = createCatalogSearch(sql);
  const score = (ids: string[], q: (typeof EVERYDAY_QUERIES)[number]) => judge(ids, catalog, q.want);
  const lines = [`demo catalog: ${catalog.length} tracks (metadata rows), ${EVERYDAY_QUERIES.length} everyday queries`];
  for (const intent of [false, true]) lines.push(line(`intent ${intent ? 'on' : 'off'}`, await evaluate(search, EVERYDAY_QUERIES, intent, score)));
  return lines;
}

async function withScratchSql<T>(use: (sql: Sql) => Promise<T>): Promise<T> {
  const db = await scratchDatabase();
  const sql = connectSql(db.url, 4);
  try {
    await migrate(sql);
    return await use(sql);
  } finally {
    await sql.end();
    await db.dispose();
  }
}

export async function benchSearchRelevance(): Promise<string> {
  const library = await withScratchSql(libraryLines);
  const demo = process.env.DATABASE_URL ? [] : await withScratchSql(demoLines); // one shared database holds one catalog
  return [...library, ...demo].join('\n');
}
