// Search on a library-shaped catalog: 3,000 tracks drawn from the committed tag distribution
// (support/library-catalog.ts: the long tail of specific genres, instruments by specific name,
// moods that are themes and uses), 120 everyday queries graded from tags
// (support/library-queries.ts), over HTTP with and without intent. nDCG@10 on the tuned half and
// on the held-out half each above a floor, no empty page. `npm run bench -- search-relevance`
// prints the same figures with more detail.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { insertTrackRows } from './support/catalog-rows.ts';
import { libraryCatalog } from './support/library-catalog.ts';
import { halfOf, LIBRARY_QUERIES, type Half } from './support/library-queries.ts';
import { judgeLibrary, type GradedTrack } from './support/library-grading.ts';

let server: TestServer;
let catalog: GradedTrack[];

before(async () => {
  server = await startTestServer();
  const sql = server.service.database.sql;
  await insertTrackRows(sql, libraryCatalog(), 'library-scale');
  catalog = await sql<GradedTrack[]>`SELECT id, genre, subgenres, moods, instruments, energy_level, has_vocals FROM tracks WHERE removed_at IS NULL`;
});
after(() => server.stop());

// Measured (the catalog is seeded): tuned half nDCG@10 0.907, held-out half 0.942, the same
// within 0.003 with intent. Floors a little under; issue 87's bar is 0.80.
const FLOORS: Record<Half, number> = { tune: 0.88, 'held-out': 0.9 };

async function evaluate(half: Half, intent: boolean) {
  const key = await server.newKey('pro'); // a key per pass: 60 searches, under pro's 300 a minute
  const queries = LIBRARY_QUERIES.filter((_, i) => halfOf(i) === half);
  let ndcg = 0;
  const empty: string[] = [];
  for (const { query, aspects } of queries) {
    const response = await call(server.base, 'POST', `${API}/search`, key, { query, limit: 10, intent });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const ids = response.body.tracks.map((t: { id: string }) => t.id);
    if (ids.length === 0) empty.push(query);
    ndcg += judgeLibrary(ids, catalog, aspects).ndcg10 / queries.length;
  }
  return { ndcg, empty };
}

test(`relevance at library scale: ${LIBRARY_QUERIES.length} everyday queries over 3,000 tracks, tuned and held-out halves, with and without intent`, async (t) => {
  assert.equal(catalog.length, 3000);
  for (const half of ['tune', 'held-out'] as const) {
    for (const intent of [false, true]) {
      const { ndcg, empty } = await evaluate(half, intent);
      t.diagnostic(`${half} half, intent ${intent ? 'on' : 'off'}: nDCG@10 ${ndcg.toFixed(3)}, empty pages ${empty.length}`);
      assert.deepEqual(empty, [], `${half}, intent ${intent}`);
      assert.ok(ndcg >= FLOORS[half], `${half}, intent ${intent}: nDCG@10 ${ndcg.toFixed(3)} < ${FLOORS[half]}`);
    }
  }
});
