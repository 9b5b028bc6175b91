// POST /search over real HTTP: validation, filters, relevance order, typo tolerance, pagination,
// the free-tier intent rule, credits, and preview links that work.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { drumPattern } from './support/synth.ts';
import { ingestSignals } from './support/ingest.ts';
import { hashApiKey, revokeApiKey } from '../billing/api-keys.ts';
import { movableClock } from './support/window-clock.ts';

const clock = movableClock();
let server: TestServer;
let key: string;

const CATALOG = [
  { title: 'Quiet Lanterns', artist: 'Paper Owls', genre: 'Ambient', moods: ['Calm', 'Peaceful'], instruments: ['Piano', 'Synth'], has_vocals: false, bpm: 70, energy_level: 'low', description: 'soft piano for study and sleep' },
  { title: 'Thunder Road Trailer', artist: 'Iron Division', genre: 'Cinematic', moods: ['Epic', 'Dramatic'], instruments: ['Strings', 'Brass', 'Drums'], has_vocals: false, bpm: 100, energy_level: 'high', description: 'dark cinematic trailer with huge drums' },
  { title: 'Sunny Porch', artist: 'Amber Kites', genre: 'Acoustic', moods: ['Happy', 'Warm'], instruments: ['Guitar', 'Percussion'], has_vocals: true, bpm: 110, energy_level: 'medium', description: 'uplifting acoustic guitar with vocals' },
  { title: 'Neon Runner', artist: 'Static Machines', genre: 'Electronic', moods: ['Energetic', 'Frantic'], instruments: ['Synth', 'Electronic Drums', 'Bass'], has_vocals: false, bpm: 174, energy_level: 'high', description: 'fast drum and bass for workout videos' },
  { title: 'Late Night Study', artist: 'Lucid Foxes', genre: 'Hip Hop', moods: ['Chill', 'Laid Back'], instruments: ['Piano', 'Drums', 'Bass'], has_vocals: false, bpm: 85, energy_level: 'medium', description: 'lofi hip hop beats to study and relax' },
  { title: 'Golden Hour Pop', artist: 'Nova Hearts', genre: 'Pop', moods: ['Happy', 'Hopeful'], instruments: ['Synth', 'Drums', 'Vocals'], has_vocals: true, bpm: 118, energy_level: 'high', description: 'catchy upbeat pop with female vocals' },
  { title: 'Velvet Lounge', artist: 'Quiet Theory', genre: 'Jazz', moods: ['Elegant', 'Romantic'], instruments: ['Piano', 'Bass', 'Drums'], has_vocals: false, bpm: 120, energy_level: 'medium', description: 'smooth jazz trio' },
  { title: 'Frozen Meadows', artist: 'Pale Orchestra', genre: 'Classical', moods: ['Contemplative', 'Melancholic'], instruments: ['Strings', 'Piano'], has_vocals: false, bpm: 66, energy_level: 'low', description: 'string quartet, reflective' },
];

before(async () => {
  server = await startTestServer({ windowClock: clock });
  key = await server.newKey('pro');
  const report = await ingestSignals({
    sql: server.service.database.sql,
    pool: server.service.engine,
    storage: server.service.storage,
    tracks: CATALOG.map((metadata, i) => ({ file: `${i}.mp3`, signal: drumPattern(metadata.bpm, 11, 0.5, i + 1), metadata })),
  });
  assert.equal(report.ingested.length, CATALOG.length);
});
after(() => server.stop());

const search = (body: unknown, as = key) => call(server.base, 'POST', `${API}/search`, as, body);
const titles = (r: Awaited<ReturnType<typeof search>>) => r.body.tracks.map((t: any) => t.title);

test('the best match comes first; typos in names still find the track', async () => {
  assert.equal(titles(await search({ query: 'lofi beats to study' }))[0], 'Late Night Study');
  assert.equal(titles(await search({ query: 'dark cinematic trailer' }))[0], 'Thunder Road Trailer');
  assert.equal(titles(await search({ query: 'neon runer' }))[0], 'Neon Runner');
  const nothing = await search({ query: 'zzzqqq' });
  assert.equal(nothing.status, 200);
  assert.deepEqual(nothing.body.tracks, []);
  assert.equal(nothing.body.total_count, 0);
});

test('each filter alone and combined matches the catalog exactly', async () => {
  const expect = (filters: object, predicate: (t: (typeof CATALOG)[number]) => boolean) =>
    search({ query: 'music piano guitar synth strings drums study trailer pop jazz calm', limit: 100, filters, intent: false }).then((r) => {
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const want = CATALOG.filter(predicate).map((t) => t.title).sort();
      const got = titles(r).sort();
      assert.deepEqual(got, want, JSON.stringify(filters));
    });
  await expect({ genres: ['jazz', 'Classical'] }, (t) => ['Jazz', 'Classical'].includes(t.genre));
  await expect({ moods: ['happy'] }, (t) => t.moods.includes('Happy'));
  await expect({ instruments: ['Electronic Drums'] }, (t) => t.instruments.includes('Electronic Drums'));
  await expect({ has_vocals: true }, (t) => t.has_vocals);
  await expect({ has_vocals: false, energy_level: 'low' }, (t) => !t.has_vocals && t.energy_level === 'low');
  await expect({ min_bpm: 100, max_bpm: 120 }, (t) => t.bpm >= 100 && t.bpm <= 120);
  await expect({ genres: ['Pop'], moods: ['Hopeful'], has_vocals: true, min_bpm: 110 }, (t) => t.genre === 'Pop');
});

test('pages concatenate to the full ordered list, without duplicates; offset beyond the end is empty', async () => {
  const body = { query: 'piano drums synth strings bass guitar', intent: false };
  const all = await search({ ...body, limit: 100 });
  const pages = [];
  for (let offset = 0; offset < all.body.total_count; offset += 3) pages.push(...(await search({ ...body, limit: 3, offset })).body.tracks);
  assert.deepEqual(pages.map((t: any) => t.id), all.body.tracks.map((t: any) => t.id));
  assert.equal(new Set(pages.map((t: any) => t.id)).size, pages.length);
  const beyond = await search({ ...body, offset: 500 });
  assert.equal(beyond.status, 200);
  assert.deepEqual(beyond.body.tracks, []);
  assert.equal(beyond.body.total_count, all.body.total_count);
  assert.equal(beyond.body.offset, 500);
  assert.equal(beyond.body.limit, 20);
});

test('validation: every bad request is a 400 naming the field, and costs nothing', async () => {
  const cases: [unknown, RegExp][] = [
    [{}, /query is required/],
    [{ query: '' }, /non-empty string/],
    [{ query: 7 }, /non-empty string/],
    [{ query: 'x'.repeat(501) }, /at most 500/],
    [{ query: 'a', limit: 0 }, /limit must be an integer from 1 to 100/],
    [{ query: 'a', limit: 101 }, /limit/],
    [{ query: 'a', limit: 2.5 }, /limit/],
    [{ query: 'a', offset: -1 }, /offset/],
    [{ query: 'a', page: 2 }, /unknown field "page"/],
    [{ query: 'a', filters: [] }, /filters must be an object/],
    [{ query: 'a', filters: { color: 'red' } }, /unknown filter "color"/],
    [{ query: 'a', filters: { genres: ['Lofi'] } }, /unknown value "Lofi"; did you mean/],
    [{ query: 'a', filters: { genres: 'Jazz' } }, /filters.genres must be a non-empty array/],
    [{ query: 'a', filters: { min_bpm: 30 } }, /filters.min_bpm must be a number from 40 to 200/],
    [{ query: 'a', filters: { min_bpm: 150, max_bpm: 100 } }, /must not exceed/],
    [{ query: 'a', filters: { energy_level: 'extreme' } }, /energy_level must be low, medium or high/],
    [{ query: 'a', filters: { has_vocals: 'yes' } }, /has_vocals must be true or false/],
    [{ query: 'a', intent: 'yes' }, /intent must be true or false/],
  ];
  const before = (await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining;
  for (const [body, message] of cases) {
    const response = await search(body);
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.equal(response.body.code, 'invalid_parameters');
    assert.match(response.body.message, message, JSON.stringify(body));
  }
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining, before);
});

test('intent: stated values rank and are reported but exclude nothing; explicit filters always apply', async () => {
  // Inferred values only lift the tracks that carry them: every track still ranks.
  const response = await search({ query: 'calm piano for study, no vocals' });
  assert.equal(response.status, 200);
  assert.equal(response.body.intent.has_vocals, false);
  assert.deepEqual(response.body.intent.instruments, ['Piano']);
  assert.equal(response.body.intent.applied, 'filters');
  assert.equal(response.body.total_count, CATALOG.length);
  assert.equal(response.body.tracks[0].title, 'Quiet Lanterns', 'calm, for study, piano, no vocals: the best fit first');
  const explicit = await search({ query: 'calm piano for study', filters: { energy_level: 'medium' } });
  for (const t of explicit.body.tracks) assert.equal(t.energy_level, 'medium');
  const off = await search({ query: 'calm piano for study', intent: false });
  assert.equal(off.body.intent.applied, 'none');
  assert.equal(off.body.intent.instruments, undefined);
  assert.deepEqual(off.body.intent.matched, ['calm', 'piano', 'study']);
  assert.equal(off.body.total_count, CATALOG.length, 'without filters every track ranks');
});

test('one credit per search, exact credits_remaining; intent needs a paid plan; preview links work', async () => {
  const free = await server.newKey('free');
  const refused = await search({ query: 'calm piano', intent: true }, free);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, 'forbidden');
  const ok = await search({ query: 'calm piano' }, free);
  assert.equal(ok.status, 200);
  assert.equal(ok.body.credits_remaining, 49);
  assert.equal(ok.headers.get('x-credits-remaining'), '49');
  const track = ok.body.tracks[0];
  for (const field of ['id', 'title', 'artist', 'duration_seconds', 'bpm', 'key', 'genre', 'subgenres', 'moods', 'has_vocals', 'energy_level', 'instruments', 'preview_url', 'peak_seconds']) {
    assert.ok(field in track, `track lacks ${field}`);
  }
  const preview = await fetch(track.preview_url);
  assert.equal(preview.status, 200);
  assert.equal(preview.headers.get('content-type'), 'audio/mpeg');
  const bytes = (await preview.arrayBuffer()).byteLength;
  // HEAD (what media players and link checkers ask first): the GET's headers and length, no body.
  const head = await fetch(track.preview_url, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-type'), 'audio/mpeg');
  assert.equal(head.headers.get('content-length'), String(bytes));
  assert.equal((await head.arrayBuffer()).byteLength, 0);
});

test('searches are charged after they are worked out: 20 concurrent on 5 credits give exactly 5 results and 15 402s', async () => {
  const poor = await server.newKey('pro');
  const sql = server.service.database.sql;
  await sql`UPDATE api_keys SET credits = 5 WHERE key_hash = ${hashApiKey(poor)}`;
  const responses = await Promise.all(Array.from({ length: 20 }, () => search({ query: 'calm piano' }, poor)));
  const ok = responses.filter((r) => r.status === 200);
  assert.equal(ok.length, 5, `statuses ${responses.map((r) => r.status)}`);
  assert.deepEqual(ok.map((r) => r.body.credits_remaining).sort(), [0, 1, 2, 3, 4]);
  assert.ok(ok.every((r) => Number(r.headers.get('x-credits-remaining')) === r.body.credits_remaining));
  const refused = responses.filter((r) => r.status === 402);
  assert.equal(refused.length, 15);
  assert.ok(refused.every((r) => r.body.code === 'insufficient_credits' && r.body.tracks === undefined));
  const [{ credits }] = await sql`SELECT credits FROM api_keys WHERE key_hash = ${hashApiKey(poor)}`;
  assert.equal(credits, 0);
});

test('intent whose values no track carries still finds the words', async () => {
  // "organ" infers an instrument no track has.
  const response = await search({ query: 'organ quiet lanterns' });
  assert.equal(response.status, 200);
  assert.equal(response.body.intent.applied, 'filters');
  assert.deepEqual(response.body.intent.instruments, ['Organ']);
  assert.equal(titles(response)[0], 'Quiet Lanterns');
  assert.equal(response.body.total_count, (await search({ query: 'organ quiet lanterns', intent: false })).body.total_count);
});

test('a search begun while its key is being admitted keeps the order of checks: 401, then 429, then 400', async () => {
  const sql = server.service.database.sql;
  const free = await server.newKey('free'); // 5 requests a minute
  // Right after a minute's start, so all seven searches fall in one window.
  clock.toNextMinute();
  for (let i = 0; i < 4; i++) assert.equal((await search({ query: 'calm piano' }, free)).status, 200);
  // Admitted moments ago, under its limit: the search starts early, and its 400 still comes out.
  const invalid = await search({ query: '' }, free);
  assert.equal(invalid.status, 400);
  // Now at its limit: 429, although the body is invalid too, and nothing is charged.
  const limited = await search({ query: '' }, free);
  assert.equal(limited.status, 429);
  assert.equal((await search({ query: 'calm piano' }, free)).status, 429);
  // A busy key that is revoked: its next search is refused once the revocation is known.
  const busy = await server.newKey('pro');
  const balance = async () => (await sql`SELECT credits FROM api_keys WHERE key_hash = ${hashApiKey(busy)}`)[0].credits;
  const before = await balance();
  for (let i = 0; i < 10; i++) assert.equal((await search({ query: 'calm piano' }, busy)).status, 200);
  assert.equal(await revokeApiKey(sql, busy.slice(0, 12)), true);
  await new Promise((r) => setTimeout(r, 50));
  const revoked = await search({ query: 'calm piano' }, busy);
  assert.equal(revoked.status, 401);
  assert.equal(await balance(), before - 10, 'ten searches charged, the refused one not');
});
