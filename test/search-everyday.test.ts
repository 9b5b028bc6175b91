// Search that understands everyday language, over the demo catalog's first 156 tracks (the 13
// styles; the first 26 rendered and ingested from their audio, BPM and energy level measured by
// the analysis, the rest as their generator metadata) plus 60 tracks tagged the way a production
// library tags them: 137 queries written
// the way people type (uses, scenes, feelings, single words, typos, negations), none containing
// a tag word it is judged by; nDCG@10 and P@5 with and without intent, with floors. Also: no
// everyday query gets an empty page, "music" with a genre filter lists that genre, a nonsense
// query gets an empty page that says which words were not understood, facets count what the
// catalog holds, and similar tracks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import path from 'node:path';
import { insertPlannedTracks, insertTrackRows } from './support/catalog-rows.ts';
import { DEFAULT_SEED } from '../catalog/demo/generate.ts';
import { ingestRenderedDemo } from './support/rendered-demo.ts';
import { LIBRARY_TRACKS } from './support/library-tracks.ts';
import { EVERYDAY_QUERIES } from './support/everyday-queries.ts';
import { judge, type JudgedTrack, type Judgment } from './support/relevance.ts';
import { BPM_FACET_BANDS, bpmBandLabel } from '../search/facets.ts';

/** Demo tracks rendered and ingested from audio (two per style); the rest are metadata rows. */
const RENDERED = 26;

let server: TestServer;
let key: string;
let catalog: JudgedTrack[];

before(async () => {
  server = await startTestServer();
  key = await server.newKey('pro');
  const sql = server.service.database.sql;
  await ingestRenderedDemo({ sql, pool: server.service.engine, storage: server.service.storage, tracks: RENDERED, fromAnalysis: ['bpm', 'energy_level'] });
  await insertPlannedTracks(sql, 156 - RENDERED, DEFAULT_SEED, 1000, RENDERED);
  await insertTrackRows(sql, LIBRARY_TRACKS, 'library');
  // Judged by the tags as stored: the demo tracks' BPM and energy are what the analysis measured.
  catalog = await sql<JudgedTrack[]>`SELECT id, genre, moods, instruments, energy_level, has_vocals, bpm FROM tracks WHERE removed_at IS NULL`;
  assert.equal(catalog.length, 216);
});
after(() => server.stop());

const search = (body: object, as = key) => call(server.base, 'POST', `${API}/search`, as, body);
const ids = (r: Awaited<ReturnType<typeof search>>) => r.body.tracks.map((t: any) => t.id as string);

// Measured (the catalog is seeded, so the same every run): without intent nDCG@10 0.908, P@5
// 0.864; with intent 0.908, 0.863 (pages now trade a little precision for variety,
// search/diverse-page.ts). Floors a little under: a few queries losing their best tracks fails it.
const FLOORS = { plainNdcg: 0.9, plainP5: 0.86, intentNdcg: 0.9, intentP5: 0.86 };

/** The words of the tags a judgment names ("Laid Back" -> laid, back), as the set's rule counts them. */
function tagWords(want: Judgment): string[] {
  const values = [...(want.genres ?? []), ...(want.moods ?? []), ...(want.instruments ?? []), ...(want.energy ?? []), ...(want.vocals === undefined ? [] : ['vocals'])];
  return values.flatMap((v) => v.toLowerCase().replace(/'s\b/g, '').split(/[^a-z]+/)).filter((w) => w && w !== 'music' && w !== 'and');
}

test('no everyday query contains a tag word it is judged by', () => {
  for (const { query, want } of EVERYDAY_QUERIES) {
    const words = query.toLowerCase().split(/[^a-z0-9]+/).map((w) => w.replace(/s$/, ''));
    for (const tag of tagWords(want)) assert.ok(!words.includes(tag.replace(/s$/, '')), `"${query}" contains "${tag}"`);
  }
});

async function evaluate(intent: boolean) {
  const own = await server.newKey('pro'); // a key per pass: 137 searches, under pro's 300 a minute
  let ndcg = 0;
  let p5 = 0;
  const empty: string[] = [];
  const worst: string[] = [];
  for (const { query, want } of EVERYDAY_QUERIES) {
    const response = await search({ query, limit: 10, intent }, own);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    if (response.body.tracks.length === 0) empty.push(query);
    const m = judge(ids(response), catalog, want);
    ndcg += m.ndcg10;
    p5 += m.precision5;
    if (m.ndcg10 < 0.5) worst.push(`${query} (${m.ndcg10.toFixed(2)})`);
    if (process.env.RELEVANCE_DETAIL) console.log(intent, query, m.ndcg10.toFixed(2), JSON.stringify(response.body.intent));
  }
  return { ndcg: ndcg / EVERYDAY_QUERIES.length, p5: p5 / EVERYDAY_QUERIES.length, empty, worst };
}

test(`relevance over ${EVERYDAY_QUERIES.length} everyday queries: nDCG@10 and P@5 with and without intent, no empty page`, async (t) => {
  const plain = await evaluate(false);
  const withIntent = await evaluate(true);
  t.diagnostic(`without intent: nDCG@10 ${plain.ndcg.toFixed(3)}, P@5 ${plain.p5.toFixed(3)}, empty pages ${plain.empty.length}`);
  t.diagnostic(`with intent:    nDCG@10 ${withIntent.ndcg.toFixed(3)}, P@5 ${withIntent.p5.toFixed(3)}, empty pages ${withIntent.empty.length}`);
  t.diagnostic(`below 0.5 without intent: ${plain.worst.join('; ')}`);
  assert.deepEqual(plain.empty, []);
  assert.deepEqual(withIntent.empty, []);
  assert.ok(plain.ndcg >= FLOORS.plainNdcg && plain.p5 >= FLOORS.plainP5, JSON.stringify(plain));
  assert.ok(withIntent.ndcg >= FLOORS.intentNdcg && withIntent.p5 >= FLOORS.intentP5, JSON.stringify(withIntent));
});

test('"music" with each single genre filter lists exactly that genre; a nonsense query is empty and says why', async () => {
  key = await server.newKey('pro');
  for (const genre of new Set(catalog.map((t) => t.genre))) {
    const response = await search({ query: 'music', limit: 100, filters: { genres: [genre] } });
    assert.equal(response.status, 200);
    const want = catalog.filter((t) => t.genre === genre).map((t) => t.id).sort();
    assert.equal(response.body.total_count, want.length, genre);
    assert.deepEqual([...ids(response)].sort(), want, genre);
  }
  for (const query of ['songs', 'tracks', 'some music please']) assert.equal((await search({ query })).body.total_count, catalog.length, query);
  const nonsense = await search({ query: 'qwxz' });
  assert.equal(nonsense.status, 200);
  assert.deepEqual(nonsense.body.tracks, []);
  assert.equal(nonsense.body.total_count, 0);
  assert.deepEqual(nonsense.body.intent.not_understood, ['qwxz']);
  const partly = await search({ query: 'qwxz wedding' });
  assert.deepEqual(partly.body.intent.not_understood, ['qwxz']);
  assert.ok(partly.body.intent.matched.includes('wedding'));
  assert.equal(partly.body.total_count, catalog.length);
});

test('negation: "without vocals" ranks instrumental tracks first; "not too fast" slow ones', async () => {
  const calm = await search({ query: 'calm music without vocals', limit: 10, intent: false });
  assert.ok(calm.body.tracks.every((t: any) => t.has_vocals === false), JSON.stringify(calm.body.tracks.map((t: any) => t.has_vocals)));
  assert.equal(calm.body.intent.matched.length, 2);
  assert.ok(calm.body.intent.matched.includes('calm') && calm.body.intent.matched.some((p: string) => /vocals/.test(p)), JSON.stringify(calm.body.intent));
  // Intent's values lift the tracks that carry them and exclude none: only the caller's filters exclude.
  const withIntent = await search({ query: 'calm music without vocals', limit: 100 });
  assert.equal(withIntent.body.intent.has_vocals, false);
  assert.equal(withIntent.body.intent.applied, 'filters');
  assert.equal(withIntent.body.total_count, catalog.length);
  const instrumental = catalog.filter((t) => !t.has_vocals).length;
  assert.ok(withIntent.body.tracks.slice(0, instrumental).every((t: any) => t.has_vocals === false), 'the instrumental tracks first');
  const metal = await search({ query: 'heavy metal', limit: 10 });
  assert.deepEqual(metal.body.intent.genres, ['Metal']);
  assert.equal(metal.body.intent.applied, 'filters');
  assert.equal(metal.body.tracks[0].genre, 'Metal');
  assert.ok(metal.body.tracks.length === 10);
  const notFast = await search({ query: 'not too fast', limit: 10, intent: false });
  assert.ok(notFast.body.tracks.every((t: any) => t.bpm < 120), JSON.stringify(notFast.body.tracks.map((t: any) => t.bpm)));
});

function counts(values: (string | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) if (v !== undefined) out[v] = (out[v] ?? 0) + 1;
  return out;
}

test('facets count every track the filters select, not just the page', async () => {
  key = await server.newKey('pro');
  for (const filters of [{}, { genres: ['Jazz', 'Pop'] }, { has_vocals: true, min_bpm: 100 }, { energy_level: 'low' }]) {
    const response = await search({ query: 'music', limit: 3, filters, facets: true });
    assert.equal(response.status, 200);
    const f = filters as { genres?: string[]; has_vocals?: boolean; min_bpm?: number; energy_level?: string };
    const selected = catalog.filter((t) => (!f.genres || f.genres.includes(t.genre)) && (f.has_vocals === undefined || t.has_vocals === f.has_vocals) &&
      (f.min_bpm === undefined || t.bpm >= f.min_bpm) && (!f.energy_level || t.energy_level === f.energy_level));
    const facets = response.body.facets;
    assert.deepEqual(sorted(facets.genres), sorted(counts(selected.map((t) => t.genre))), JSON.stringify(filters));
    assert.deepEqual(sorted(facets.moods), sorted(counts(selected.flatMap((t) => t.moods))));
    assert.deepEqual(sorted(facets.instruments), sorted(counts(selected.flatMap((t) => t.instruments))));
    assert.deepEqual(sorted(facets.energy_level), sorted(counts(selected.map((t) => t.energy_level))));
    assert.deepEqual(sorted(facets.has_vocals), sorted(counts(selected.map((t) => String(t.has_vocals)))));
    assert.deepEqual(sorted(facets.bpm), sorted(counts(selected.map((t) => bpmBandLabel(BPM_FACET_BANDS.find(([from, to]) => t.bpm >= from && t.bpm < to)!)))));
    assert.equal(response.body.tracks.length, Math.min(3, selected.length));
  }
  assert.equal((await search({ query: 'music' })).body.facets, undefined, 'only when asked');
  assert.equal((await search({ query: 'music', facets: 'yes' })).status, 400);
});

function sorted(o: Record<string, number>): [string, number][] {
  return Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1));
}

test('similar tracks: never the track itself, mostly its own genre, 404 for unknown ids, 1 credit', async () => {
  const own = await server.newKey('pro');
  const me = async () => (await call(server.base, 'GET', `${API}/me`, own)).body.credits_remaining;
  const start = await me();
  let sameGenre = 0;
  const probes = catalog.filter((_, i) => i % 20 === 0);
  for (const track of probes) {
    const response = await call(server.base, 'GET', `${API}/tracks/${track.id}/similar?limit=5`, own);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.equal(response.body.tracks.length, 5);
    assert.ok(!ids(response).includes(track.id));
    assert.equal(response.body.total_count, catalog.length - 1);
    sameGenre += response.body.tracks.filter((t: any) => t.genre === track.genre).length / 5;
  }
  assert.ok(sameGenre / probes.length >= 0.6, `share of the same genre ${sameGenre / probes.length}`);
  assert.equal(await me(), start - probes.length, 'one credit each');
  const unknown = await call(server.base, 'GET', `${API}/tracks/trk_0000000000000000/similar`, own);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.code, 'not_found');
  assert.equal((await call(server.base, 'GET', `${API}/tracks/nope/similar`, own)).status, 404);
  assert.equal((await call(server.base, 'GET', `${API}/tracks/${catalog[0].id}/similar?limit=0`, own)).status, 400);
  assert.equal((await call(server.base, 'GET', `${API}/tracks/${catalog[0].id}/similar?colour=red`, own)).status, 400);
  assert.equal(await me(), start - probes.length, 'refusals cost nothing');
});

test('queries in other Unicode spellings, invisible queries, tempos not wanted or out of range, and catalog values spelt in other cases', async () => {
  // Full-width letters and a zero-width space inside a word read as the plain words.
  for (const query of ['ＨＥＡＶＹ ＭＥＴＡＬ', 'hea\u200bvy metal']) assert.deepEqual((await search({ query })).body.intent.genres, ['Metal'], query);
  const invisible = await search({ query: '\u200b\u2060 ' });
  assert.equal(invisible.status, 400);
  assert.match(invisible.body.message, /something visible/);
  assert.equal((await search({ query: '🎵'.repeat(500) })).status, 200, '500 characters, counted as characters');
  assert.equal((await search({ query: '🎵'.repeat(501) })).status, 400);
  // A tempo not wanted names no range, and its negation reaches no further.
  const notTempo = await search({ query: 'not 120 bpm piano' });
  assert.equal(notTempo.body.intent.min_bpm, undefined);
  assert.ok(notTempo.body.intent.not_understood.includes('not 120 bpm'), JSON.stringify(notTempo.body.intent));
  assert.deepEqual(notTempo.body.intent.instruments, ['Piano'], 'piano is wanted, not negated');
  const fastest = (await search({ query: '210 bpm' })).body.intent;
  assert.ok(fastest.min_bpm <= fastest.max_bpm && fastest.max_bpm <= 200, JSON.stringify(fastest));
  // Values outside the vocabulary are kept as written at ingest: a filter finds every spelling.
  const sql = server.service.database.sql;
  await insertTrackRows(sql, ['Zesty', 'zesty', 'ZESTY'].map((mood, i) => ({ title: `Spelt ${i}`, artist: 'Cases', genre: 'Pop', subgenres: [], moods: [mood], instruments: [], has_vocals: false, energy_level: 'medium', description: '', bpm: 100 })), 'spellings');
  for (const spelling of ['zesty', 'ZESTY']) {
    const found = await search({ query: 'music', filters: { moods: [spelling] } });
    assert.equal(found.body.total_count, 3, spelling);
  }
});
