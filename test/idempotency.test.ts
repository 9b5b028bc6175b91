// Idempotency-Key on the paid endpoints (design.md "Billing", Stripe's semantics): a repeat
// replays the first reply and is not charged; a different request under the key is 422; a repeat
// while the first is in flight is 409; a failed request releases its key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';
import { API } from './support/http.ts';
import { climaxPiece } from './support/synth.ts';
import { ingestSignals } from './support/ingest.ts';
import { hashApiKey } from '../billing/api-keys.ts';

let server: TestServer;
let trackId: string;

before(async () => {
  server = await startTestServer();
  const report = await ingestSignals({
    sql: server.service.database.sql, pool: server.service.engine, storage: server.service.storage,
    tracks: [{ file: 'drive.mp3', signal: climaxPiece(120, 40, 20), metadata: { title: 'Night Drive', artist: 'Test', genre: 'electronic' } }],
  });
  trackId = report.ingested[0].id;
});
after(() => server.stop());

interface Sent { status: number; headers: Headers; text: string; bytes: Buffer }

async function post(route: string, key: string, body: unknown, idempotencyKey?: string, rawBody?: string): Promise<Sent> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  const response = await fetch(`${server.base}${API}${route}`, { method: 'POST', headers, body: rawBody ?? JSON.stringify(body) });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, text: bytes.toString('utf8'), bytes };
}

async function balance(key: string): Promise<number> {
  const [row] = await server.service.database.sql`SELECT credits FROM api_keys WHERE key_hash = ${hashApiKey(key)}`;
  return row.credits;
}

async function paidUsage(key: string): Promise<number> {
  const [row] = await server.service.database.sql`
    SELECT coalesce(sum(u.credits_consumed), 0)::int AS n FROM usage_records u JOIN api_keys k ON k.id = u.key_id WHERE k.key_hash = ${hashApiKey(key)}`;
  return row.n;
}

test('search: a repeat with the same key and body replays the first reply and is not charged', async () => {
  const key = await server.newKey('pro');
  const idem = crypto.randomUUID();
  const first = await post('/search', key, { query: 'night drive', limit: 5 }, idem);
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const after = await balance(key);
  // Key order is not a difference.
  const again = await post('/search', key, { limit: 5, query: 'night drive' }, idem);
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.text, first.text, 'the stored body, byte for byte');
  assert.equal(await balance(key), after, 'no second charge');
  assert.equal(Number(again.headers.get('x-credits-remaining')), after);
  assert.equal(await paidUsage(key), 1, 'one charged usage record');
});

test('similar tracks: a repeat with the same key, id and query replays the first reply, uncharged; another query under the key is 422', async () => {
  const key = await server.newKey('pro');
  const idem = crypto.randomUUID();
  const get = async (query: string) => {
    const response = await fetch(`${server.base}${API}/tracks/${trackId}/similar${query}`, { headers: { authorization: `Bearer ${key}`, 'idempotency-key': idem } });
    return { status: response.status, replayed: response.headers.get('idempotent-replayed'), text: await response.text() };
  };
  const first = await get('?limit=5');
  assert.equal(first.status, 200, first.text);
  assert.equal(first.replayed, null);
  const after = await balance(key);
  const again = await get('?limit=5');
  assert.equal(again.status, 200);
  assert.equal(again.replayed, 'true');
  assert.equal(again.text, first.text);
  assert.equal(await balance(key), after, 'no second charge');
  const other = await get('?limit=6');
  assert.equal(other.status, 422);
  assert.equal(JSON.parse(other.text).code, 'idempotency_key_reused');
  assert.equal(await balance(key), after);
  assert.equal(await paidUsage(key), 1);
});

test('the same key with a different body is 422 idempotency_key_reused, and costs nothing', async () => {
  const key = await server.newKey('pro');
  const idem = crypto.randomUUID();
  assert.equal((await post('/search', key, { query: 'calm piano' }, idem)).status, 200);
  const before = await balance(key);
  const reused = await post('/search', key, { query: 'loud drums' }, idem);
  assert.equal(reused.status, 422);
  const body = JSON.parse(reused.text);
  assert.equal(body.code, 'idempotency_key_reused');
  assert.match(body.message, /different request/);
  assert.ok(body.request_id);
  assert.equal(await balance(key), before);
  // Another endpoint with the same key and body is a different request too.
  assert.equal((await post('/_test/answer', key, { query: 'calm piano' }, idem)).status, 422);
});

test('a repeat while the first is still in flight is 409 idempotency_key_in_flight; after it, a replay', async () => {
  const key = await server.newKey('pro');
  const idem = crypto.randomUUID();
  const first = post('/_test/paid', key, { delay_ms: 600 }, idem);
  await new Promise((r) => setTimeout(r, 200));
  const during = await post('/_test/paid', key, { delay_ms: 600 }, idem);
  assert.equal(during.status, 409);
  assert.equal(JSON.parse(during.text).code, 'idempotency_key_in_flight');
  assert.equal(during.headers.get('retry-after'), '1');
  assert.equal((await first).status, 200);
  const later = await post('/_test/paid', key, { delay_ms: 600 }, idem);
  assert.equal(later.status, 200);
  assert.equal(later.headers.get('idempotent-replayed'), 'true');
  assert.equal(await paidUsage(key), 1);
});

test('a failed request releases its key: the retry runs again (and is charged only when it succeeds)', async () => {
  const key = await server.newKey('pro');
  const idem = crypto.randomUUID();
  const start = await balance(key);
  assert.equal((await post('/_test/paid', key, { fail: true }, idem)).status, 503);
  assert.equal((await post('/_test/paid', key, { fail: true }, idem)).status, 503, 'not 409: the key was released');
  assert.equal(await balance(key), start);
  // A 402 releases it too.
  const poor = await server.newKey('pro');
  await server.service.database.sql`UPDATE api_keys SET credits = 0 WHERE key_hash = ${hashApiKey(poor)}`;
  const refused = await post('/search', poor, { query: 'calm piano' }, idem);
  assert.equal(refused.status, 402);
  await server.service.database.sql`UPDATE api_keys SET credits = 5 WHERE key_hash = ${hashApiKey(poor)}`;
  const paid = await post('/search', poor, { query: 'calm piano' }, idem);
  assert.equal(paid.status, 200);
  assert.equal(paid.headers.get('idempotent-replayed'), null);
  assert.equal(await balance(poor), 4);
});

test('keys longer than 255 characters, or not visible ASCII, are 400 invalid_parameters and cost nothing', async () => {
  const key = await server.newKey('pro');
  const start = await balance(key);
  const long = await post('/search', key, { query: 'calm piano' }, 'k'.repeat(256));
  assert.equal(long.status, 400);
  assert.equal(JSON.parse(long.text).code, 'invalid_parameters');
  assert.match(JSON.parse(long.text).message, /Idempotency-Key is 256 characters; at most 255/);
  assert.equal((await post('/search', key, { query: 'calm piano' }, 'k'.repeat(255))).status, 200);
  assert.equal((await post('/search', key, { query: 'calm piano' }, 'two words')).status, 400);
  assert.equal(await balance(key), start - 1);
});

test('a clip download with a key: the repeat re-makes the same bytes, uncharged, with one license', async () => {
  const key = await server.newKey('pro');
  const idem = crypto.randomUUID();
  const body = { track_id: trackId, duration_seconds: 12, hit_point_seconds: 6 };
  const first = await post('/download-track', key, body, idem);
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('content-type'), 'audio/mpeg');
  const after = await balance(key);
  const again = await post('/download-track', key, body, idem);
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.ok(again.bytes.equals(first.bytes), 'the same MP3 bytes');
  assert.equal(again.headers.get('x-clip-start'), first.headers.get('x-clip-start'));
  assert.equal(await balance(key), after);
  const [licenses] = await server.service.database.sql`
    SELECT count(*)::int AS n FROM licenses l JOIN api_keys k ON k.id = l.key_id WHERE k.key_hash = ${hashApiKey(key)}`;
  assert.equal(licenses.n, 1);
  // The full track too.
  const full = await post('/download-track', key, { track_id: trackId }, 'full-' + idem);
  const fullAgain = await post('/download-track', key, { track_id: trackId }, 'full-' + idem);
  assert.equal(full.status, 200);
  assert.ok(fullAgain.bytes.equals(full.bytes));
  assert.equal(await balance(key), after - 1);
});

test('keys are per API key: another key may use the same Idempotency-Key', async () => {
  const a = await server.newKey('pro');
  const b = await server.newKey('pro');
  const idem = crypto.randomUUID();
  assert.equal((await post('/search', a, { query: 'calm piano' }, idem)).status, 200);
  const other = await post('/search', b, { query: 'loud drums' }, idem);
  assert.equal(other.status, 200);
  assert.equal(other.headers.get('idempotent-replayed'), null);
});

test('twenty requests at once with one key, and others with keys of their own: one charged, the rest 409 or its replay; every other key charged once', async () => {
  const key = await server.newKey('pro');
  const shared = crypto.randomUUID();
  const before = await balance(key);
  // Sent together, so their claims share batches: one statement may not claim a key twice.
  const [same, own] = await Promise.all([
    Promise.all(Array.from({ length: 20 }, () => post('/_test/paid', key, { delay_ms: 300 }, shared))),
    Promise.all(Array.from({ length: 10 }, () => post('/_test/paid', key, { delay_ms: 300 }, crypto.randomUUID()))),
  ]);
  const firsts = same.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
  assert.equal(firsts.length, 1, 'one request under the shared key ran');
  for (const r of same) assert.ok(r.status === 409 || r.status === 200, `status ${r.status}`);
  assert.deepEqual(own.map((r) => r.status), Array(10).fill(200));
  assert.equal(before - (await balance(key)), 11);
  assert.equal(await paidUsage(key), 11);
});
