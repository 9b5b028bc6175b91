// The OpenAPI document against the real server: every kind of request the suite makes (each
// endpoint's success and each error it can answer, 401 to 503) is sent, and every reply's status,
// headers and JSON body must match the document (test/support/openapi-validator.ts). Every
// operation of the document must have been exercised with a success, so an endpoint added to the
// document without a request here, or to the server without a line in the document, fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';
import { API } from './support/http.ts';
import { ingestSignals } from './support/ingest.ts';
import { climaxPiece, drumPattern } from './support/synth.ts';
import { createProxiedDatabase, type ProxiedDatabase } from './support/proxied-database.ts';
import { createResponseValidator } from './support/openapi-validator.ts';
import { operationsOf } from './support/openapi-match.ts';
import { openApiDocument } from '../server/openapi/document.ts';
import { hashApiKey } from '../billing/api-keys.ts';

let server: TestServer;
let database: ProxiedDatabase;
let trackIds: string[];
const validator = createResponseValidator(openApiDocument);
const problems: string[] = [];
/** Pairs of requests with one Idempotency-Key sent at once, at most, until one is refused in flight (409). */
const IN_FLIGHT_ATTEMPTS = 5;

interface Sent {
  status: number;
  headers: Headers;
  json: any;
}

async function send(method: string, target: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Sent> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const response = await fetch(server.base + target, { method, headers, body });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const url = new URL(server.base + target);
  problems.push(...validator.check({ method, path: url.pathname, status: response.status, headers: response.headers, body: bytes }));
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {}
  return { status: response.status, headers: response.headers, json };
}

before(async () => {
  database = await createProxiedDatabase();
  server = await startTestServer({ databaseUrl: database.url });
  await ingestSignals({
    sql: server.service.database.sql,
    pool: server.service.engine,
    storage: server.service.storage,
    tracks: [
      { file: 'climax.mp3', signal: climaxPiece(120, 60, 35), metadata: { title: 'Climax', artist: 'Test', genre: 'Electronic', moods: ['Epic'] } },
      { file: 'drums.mp3', signal: drumPattern(100, 30), metadata: { title: 'Drums', artist: 'Test', genre: 'Rock', moods: ['Energetic'] } },
    ],
  });
  trackIds = (await server.service.database.sql`SELECT id FROM tracks ORDER BY source_file`).map((r) => r.id);
});
after(async () => {
  database.restore();
  await server.stop();
  await database.drop();
});

test('every schema of the document compiles in strict mode', () => {
  validator.compileAll();
});

test('the public endpoints: document, docs page, health, license key, previews, unknown paths and methods', async () => {
  assert.equal((await send('GET', `${API}/openapi.json`)).status, 200);
  assert.equal((await send('GET', '/docs')).status, 200);
  assert.equal((await send('GET', '/healthz')).status, 200);
  assert.equal((await send('GET', '/.well-known/music-license-key')).status, 200);
  const key = await server.newKey('starter');
  const found = await send('POST', `${API}/search`, { key, body: { query: 'epic' } });
  const preview = new URL(found.json.tracks[0].preview_url);
  const previewPath = preview.pathname + preview.search;
  const full = await send('GET', previewPath);
  assert.equal(full.status, 200);
  assert.equal((await send('GET', previewPath, { headers: { range: 'bytes=0-99' } })).status, 206);
  assert.equal((await send('GET', previewPath, { headers: { range: 'bytes=99999999-' } })).status, 416);
  assert.equal((await send('GET', previewPath, { headers: { 'if-none-match': full.headers.get('etag')! } })).status, 304);
  assert.equal((await send('GET', previewPath.replace(/sig=[^&]+/, 'sig=AAAA'))).status, 403);
  assert.equal((await send('GET', `${API}/previews/nope.mp3`)).status, 404);
  assert.equal((await send('GET', `${API}/no-such-endpoint`)).status, 404);
  assert.equal((await send('GET', `${API}/search`, { key })).status, 405);
  assert.equal((await send('GET', `${API}/me`, { key, headers: { 'x-pad': 'a'.repeat(4500) } })).status, 431);
});

test('account: /me, /usage and their 400s and 401s', async () => {
  const key = await server.newKey('starter');
  assert.equal((await send('GET', `${API}/me`, { key })).status, 200);
  assert.equal((await send('GET', `${API}/me?x=1`, { key })).status, 400);
  assert.equal((await send('GET', `${API}/me`)).status, 401);
  assert.equal((await send('GET', `${API}/me`, { key: 'mla_' + 'x'.repeat(43) })).status, 401);
  assert.equal((await send('GET', `${API}/usage?limit=2`, { key })).status, 200);
  assert.equal((await send('GET', `${API}/usage?limit=500`, { key })).status, 400);
});

test('search and similar tracks: success, facets, 400, 402, 403, 404, 413, Idempotency-Key replay and 422', async () => {
  const key = await server.newKey('starter');
  assert.equal((await send('POST', `${API}/search`, { key, body: { query: 'energetic rock', facets: true, filters: { genres: ['rock'] } } })).status, 200);
  assert.equal((await send('POST', `${API}/search`, { key, body: { limit: 5 } })).status, 400);
  assert.equal((await send('POST', `${API}/search`, { key, body: '{"query": ' })).status, 400);
  assert.equal((await send('POST', `${API}/search`, { key, body: { query: 'x'.repeat(70_000) } })).status, 413);
  const idempotent = { key, headers: { 'idempotency-key': 'conformance-search-1' } };
  assert.equal((await send('POST', `${API}/search`, { ...idempotent, body: { query: 'calm' } })).status, 200);
  const replay = await send('POST', `${API}/search`, { ...idempotent, body: { query: 'calm' } });
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal((await send('POST', `${API}/search`, { ...idempotent, body: { query: 'loud' } })).status, 422);
  const free = await server.newKey('free');
  assert.equal((await send('POST', `${API}/search`, { key: free, body: { query: 'calm', intent: true } })).status, 403);
  assert.equal((await send('GET', `${API}/tracks/${trackIds[0]}/similar?limit=1`, { key })).status, 200);
  assert.equal((await send('GET', `${API}/tracks/trk_0000000000000000/similar`, { key })).status, 404);
  assert.equal((await send('GET', `${API}/tracks/${trackIds[0]}/similar?limit=0`, { key })).status, 400);
  const broke = await server.newKey('starter');
  await server.service.database.sql`UPDATE api_keys SET credits = 0 WHERE key_hash = ${hashApiKey(broke)}`;
  assert.equal((await send('POST', `${API}/search`, { key: broke, body: { query: 'calm' } })).status, 402);
  assert.equal((await send('GET', `${API}/tracks/${trackIds[0]}/similar`, { key: broke })).status, 402);
  assert.equal((await send('POST', `${API}/download-track`, { key: broke, body: { track_id: trackIds[1] } })).status, 402);
});

test('audio: downloads (full, clip, edit, loop), clip plans, analysis, and their 400s and 404s; a 409 in flight', async () => {
  const key = await server.newKey('pro');
  const [climax, drums] = trackIds;
  assert.equal((await send('POST', `${API}/download-track`, { key, body: { track_id: drums } })).status, 200);
  assert.equal((await send('POST', `${API}/download-track`, { key, body: { track_id: climax, duration_seconds: 20, hit_point_seconds: 10 } })).status, 200);
  assert.equal((await send('POST', `${API}/download-track`, { key, body: { track_id: climax, duration_seconds: 20, mode: 'loop' } })).status, 200);
  assert.equal((await send('POST', `${API}/download-track`, { key, body: { track_id: climax, hit_point_seconds: 3 } })).status, 400);
  assert.equal((await send('POST', `${API}/download-track`, { key, body: { track_id: drums, duration_seconds: 60 } })).status, 400); // feasible_range
  assert.equal((await send('POST', `${API}/download-track`, { key, body: { track_id: 'trk_0000000000000000' } })).status, 404);
  // Two requests with one Idempotency-Key at once: the second is refused (409) while the first is
  // in flight, or replayed if the first finished before its claim (a race on a shared machine);
  // each attempt makes a clip not made before, until the 409 is seen.
  let idempotent: { key: string; headers: Record<string, string>; body: unknown } | undefined;
  const pairs: number[][] = [];
  for (let attempt = 0; attempt < IN_FLIGHT_ATTEMPTS && !pairs.some((pair) => pair.includes(409)); attempt++) {
    idempotent = { key, headers: { 'idempotency-key': `conformance-download-${attempt}` }, body: { track_id: climax, duration_seconds: 25, mode: 'edit', hit_point_seconds: 12 + attempt } };
    const [first, second] = await Promise.all([send('POST', `${API}/download-track`, idempotent), send('POST', `${API}/download-track`, idempotent)]);
    const pair = [first.status, second.status].sort();
    assert.ok(pair[0] === 200 && (pair[1] === 409 || (pair[1] === 200 && [first, second].some((r) => r.headers.get('idempotent-replayed') === 'true'))), `one Idempotency-Key twice at once: ${pair}`);
    pairs.push(pair);
  }
  assert.ok(pairs.some((pair) => pair.includes(409)), `no 409 in ${pairs.length} attempts: ${JSON.stringify(pairs)}`);
  assert.equal((await send('POST', `${API}/download-track`, idempotent!)).headers.get('idempotent-replayed'), 'true');
  assert.equal((await send('POST', `${API}/clip-plan`, { key, body: { track_id: climax, duration_seconds: 25, mode: 'edit', hit_point_seconds: 12 } })).status, 200);
  assert.equal((await send('POST', `${API}/clip-plan`, { key, body: { track_id: climax, mode: 'loop' } })).status, 400);
  assert.equal((await send('POST', `${API}/clip-plan`, { key, body: { track_id: 'trk_0000000000000000' } })).status, 404);
  assert.equal((await send('GET', `${API}/tracks/${climax}/analysis`, { key })).status, 200);
  assert.equal((await send('GET', `${API}/tracks/${climax}/analysis?x=1`, { key })).status, 400);
  assert.equal((await send('GET', `${API}/tracks/trk_0000000000000000/analysis`, { key })).status, 404);
});

test('licenses: the list, a certificate, a malformed id, another key\'s license', async () => {
  const key = await server.newKey('starter');
  const download = await send('POST', `${API}/download-track`, { key, body: { track_id: trackIds[1], duration_seconds: 10 } });
  const licenseId = download.headers.get('x-license-id');
  assert.ok(licenseId);
  assert.equal((await send('GET', `${API}/licenses?limit=1`, { key })).status, 200);
  assert.equal((await send('GET', `${API}/licenses?offset=-1`, { key })).status, 400);
  assert.equal((await send('GET', `${API}/licenses/${licenseId}`, { key })).status, 200);
  assert.equal((await send('GET', `${API}/licenses/not-a-license`, { key })).status, 400);
  assert.equal((await send('GET', `${API}/licenses/${licenseId}`, { key: await server.newKey('starter') })).status, 404);
});

test('a free key past its per-minute limit: 429 with Retry-After', async () => {
  const key = await server.newKey('free'); // 5 a minute
  let status = 0;
  // A minute boundary may fall inside the run: at most two windows' worth.
  for (let i = 0; i < 12 && status !== 429; i++) status = (await send('GET', `${API}/me`, { key })).status;
  assert.equal(status, 429);
});

test('the database away: 503 service_unavailable with Retry-After, from the API and from /healthz', async () => {
  const key = await server.newKey('starter'); // never admitted: its admission needs the database
  database.takeAway();
  try {
    assert.equal((await send('GET', `${API}/me`, { key })).status, 503);
    assert.equal((await send('GET', '/healthz')).status, 503);
  } finally {
    database.restore();
  }
});

test('every response matched the document, and every operation and error status was exercised', () => {
  assert.deepEqual(problems, []);
  const exercised = validator.exercised();
  const succeeded = new Set(exercised.filter((e) => / 2\d\d$/.test(e)).map((e) => e.replace(/ \d+$/, '')));
  assert.deepEqual(operationsOf(openApiDocument).filter((op) => !succeeded.has(op)), [], 'operations never called with success');
  const statuses = new Set(exercised.map((e) => Number(e.split(' ').pop())));
  for (const status of [400, 401, 402, 403, 404, 405, 409, 413, 416, 422, 429, 431, 503]) assert.ok(statuses.has(status), `no ${status} was exercised`);
});
