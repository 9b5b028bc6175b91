// Per-minute and per-UTC-day limits, their headers, 429s, and recovery in the next window.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { hashApiKey } from '../billing/api-keys.ts';
import { movableClock } from './support/window-clock.ts';

const clock = movableClock();
let server: TestServer;
before(async () => (server = await startTestServer({ windowClock: clock })));
after(() => server.stop());

function assertRateLimited(response: Awaited<ReturnType<typeof call>>) {
  assert.equal(response.status, 429);
  assert.equal(response.body.code, 'rate_limited');
  assert.equal(typeof response.body.error, 'string');
  assert.equal(typeof response.body.message, 'string');
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${retryAfter}`);
  assert.equal(response.body.retry_after, retryAfter);
  assert.equal(response.headers.get('x-ratelimit-remaining'), '0');
  assert.ok(response.headers.get('x-credits-remaining'));
  return retryAfter;
}

test('per-minute limit: 429 after the limit, headers count down, recovery in the next minute', async () => {
  const key = await server.newKey('free'); // 5 per minute
  // Right after a minute's start, so all six requests fall in one window.
  clock.toNextMinute();
  for (let i = 1; i <= 5; i++) {
    const response = await call(server.base, 'GET', `${API}/me`, key);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-ratelimit-limit'), '5');
    assert.equal(response.headers.get('x-ratelimit-remaining'), String(5 - i));
    assert.equal(response.headers.get('x-ratelimit-remaining-daily'), String(50 - i));
  }
  const retryAfter = assertRateLimited(await call(server.base, 'GET', `${API}/me`, key));
  assert.ok(retryAfter <= 60 && retryAfter >= 50, `Retry-After ${retryAfter} at the start of a minute`);
  // A 429 is not counted: the daily counter did not move.
  const again = await call(server.base, 'GET', `${API}/me`, key);
  assert.equal(again.status, 429);
  assert.equal(again.headers.get('x-ratelimit-remaining-daily'), '45');

  clock.advance(retryAfter * 1000);
  const recovered = await call(server.base, 'GET', `${API}/me`, key);
  assert.equal(recovered.status, 200);
  assert.equal(recovered.headers.get('x-ratelimit-remaining'), '4');
  assert.equal(recovered.headers.get('x-ratelimit-remaining-daily'), '44');
});

test('every authenticated response carries the limit headers, errors included', async () => {
  const key = await server.newKey('starter');
  const response = await call(server.base, 'GET', `${API}/usage?limit=500`, key);
  assert.equal(response.status, 400);
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-limit-daily', 'x-ratelimit-remaining-daily', 'x-credits-remaining']) {
    assert.ok(response.headers.get(header), `${header} missing`);
  }
});

test('daily limit: 429 until the next UTC midnight', async () => {
  const key = await server.newKey('free');
  const { sql } = server.service.database;
  await sql`UPDATE api_keys SET day_window = ${clock.day()}::date, day_count = 50 WHERE key_hash = ${hashApiKey(key)}`;
  const response = await call(server.base, 'GET', `${API}/me`, key);
  const retryAfter = assertRateLimited(response);
  const now = new Date(clock.now());
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  assert.ok(Math.abs(retryAfter - (midnight - now.getTime()) / 1000) < 5, `Retry-After ${retryAfter}`);
  assert.match(response.body.message, /daily/);
  assert.equal(response.headers.get('x-ratelimit-remaining-daily'), '0');

  // Yesterday's count does not carry into a new day.
  await sql`UPDATE api_keys SET day_window = ${clock.day()}::date - 1 WHERE key_hash = ${hashApiKey(key)}`;
  const nextDay = await call(server.base, 'GET', `${API}/me`, key);
  assert.equal(nextDay.status, 200);
  assert.equal(nextDay.headers.get('x-ratelimit-remaining-daily'), '49');
});

test('pro keys have no daily limit', async () => {
  const key = await server.newKey('pro');
  const { sql } = server.service.database;
  await sql`UPDATE api_keys SET day_window = ${clock.day()}::date, day_count = 1000000 WHERE key_hash = ${hashApiKey(key)}`;
  const response = await call(server.base, 'GET', `${API}/me`, key);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('x-ratelimit-remaining-daily'), 'unlimited');
});

test('limits are per key', async () => {
  const first = await server.newKey('free');
  const second = await server.newKey('free');
  clock.toNextMinute();
  for (let i = 0; i < 5; i++) await call(server.base, 'GET', `${API}/me`, first);
  assert.equal((await call(server.base, 'GET', `${API}/me`, first)).status, 429);
  assert.equal((await call(server.base, 'GET', `${API}/me`, second)).status, 200);
});

test('concurrent requests of one key (one admission batch): exactly the limit is admitted', async () => {
  clock.toNextMinute();
  const key = await server.newKey('starter'); // 10 per minute
  const responses = await Promise.all(Array.from({ length: 30 }, () => call(server.base, 'GET', `${API}/me`, key)));
  const ok = responses.filter((r) => r.status === 200);
  assert.equal(ok.length, 10);
  assert.equal(responses.filter((r) => r.status === 429).length, 20);
  assert.deepEqual(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});
