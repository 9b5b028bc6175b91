// Credits through the shared reserve/commit/refund mechanism (via the test-only paid route):
// charged once per success, never on failure or abort, exact headers, 402, monthly reset.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call, rawPost } from './support/http.ts';
import { hashApiKey } from '../billing/api-keys.ts';
import { movableClock } from './support/window-clock.ts';

const clock = movableClock();
let server: TestServer;
before(async () => (server = await startTestServer({ windowClock: clock })));
after(() => server.stop());

const PAID = `${API}/_test/paid`;
// Charged while its answer is worked out (Endpoint.answer, the path search takes).
const ANSWER = `${API}/_test/answer`;

async function balance(key: string): Promise<number> {
  const [row] = await server.service.database.sql`SELECT credits FROM api_keys WHERE key_hash = ${hashApiKey(key)}`;
  return row.credits;
}

for (const route of [PAID, ANSWER]) {
test(`${route}: a success costs exactly one credit and X-Credits-Remaining is the new balance`, async () => {
  const key = await server.newKey('starter');
  const response = await call(server.base, 'POST', route, key, {});
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('x-credits-remaining'), '299');
  assert.equal(await balance(key), 299);
});

test(`${route}: failed requests cost nothing: 5xx from the route, 400 malformed JSON, 429`, async () => {
  const key = await server.newKey('starter');
  // Right after a minute's start, so all eleven requests fall in one window.
  clock.toNextMinute();
  const failed = await call(server.base, 'POST', route, key, { fail: true });
  assert.equal(failed.status, 503);
  assert.equal(failed.headers.get('x-credits-remaining'), '300');
  const slowFailure = await call(server.base, 'POST', route, key, { fail: true, delay_ms: 50 });
  assert.equal(slowFailure.status, 503);
  assert.equal(slowFailure.headers.get('x-credits-remaining'), '300');
  const malformed = await call(server.base, 'POST', route, key, '{"fail":');
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.code, 'invalid_parameters');
  for (let i = 0; i < 7; i++) await call(server.base, 'GET', `${API}/me`, key);
  const limited = await call(server.base, 'POST', route, key, {});
  assert.equal(limited.status, 429);
  assert.equal(await balance(key), 300);
});

test(`${route}: 402 insufficient_credits when the balance is empty, and the balance stays 0`, async () => {
  const key = await server.newKey('pro');
  await server.service.database.sql`UPDATE api_keys SET credits = 1 WHERE key_hash = ${hashApiKey(key)}`;
  assert.equal((await call(server.base, 'POST', route, key, {})).status, 200);
  const empty = await call(server.base, 'POST', route, key, {});
  assert.equal(empty.status, 402);
  assert.equal(empty.body.code, 'insufficient_credits');
  assert.equal(typeof empty.body.message, 'string');
  assert.equal(empty.headers.get('x-credits-remaining'), '0');
  assert.equal(await balance(key), 0);
});

test(`${route}: the 402s of requests sent together report the balance that refused them, not the one seen at admission`, async () => {
  const key = await server.newKey('pro');
  await server.service.database.sql`UPDATE api_keys SET credits = 1 WHERE key_hash = ${hashApiKey(key)}`;
  const responses = await Promise.all(Array.from({ length: 6 }, () => call(server.base, 'POST', route, key, { delay_ms: 50 })));
  assert.deepEqual(responses.map((r) => r.status).sort(), [200, 402, 402, 402, 402, 402]);
  for (const refused of responses.filter((r) => r.status === 402)) {
    assert.equal(refused.body.message, 'insufficient credits: balance is 0, this request costs 1');
    assert.equal(refused.headers.get('x-credits-remaining'), '0');
  }
  assert.equal(await balance(key), 0);
});

test(`${route}: a client that aborts before the response is not charged`, async () => {
  const key = await server.newKey('pro');
  const socket = await rawPost(server.base, route, key, { delay_ms: 400 });
  await new Promise((r) => setTimeout(r, 100));
  socket.destroy();
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(await balance(key), 50000);
  const [reservations] = await server.service.database.sql`SELECT count(*)::int AS n FROM credit_reservations`;
  assert.equal(reservations.n, 0);
  await server.service.database.sql`SELECT 1`;
  const usage = await call(server.base, 'GET', `${API}/usage`, key);
  const aborted = usage.body.usage.find((r: any) => `${API}${r.endpoint}` === route);
  assert.equal(aborted.status_code, 499);
  assert.equal(aborted.credits_consumed, 0);
});
}

test(`${ANSWER}: an answer charged alongside its admission, for a key refused after all, gets its credit back`, async () => {
  const key = await server.newKey('starter');
  // Now this process knows the key: its next answer and charge start before its admission is counted.
  assert.equal((await call(server.base, 'POST', ANSWER, key, {})).status, 200);
  // Meanwhile another server process used up the key's day (starter: 1,000 requests).
  await server.service.database.sql`
    UPDATE api_keys SET day_count = 1000, day_window = ${clock.day()}::date WHERE key_hash = ${hashApiKey(key)}`;
  const limited = await call(server.base, 'POST', ANSWER, key, {});
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('x-credits-remaining'), '299');
  assert.equal(await balance(key), 299);
  await server.service.database.sql`UPDATE api_keys SET day_count = 0 WHERE key_hash = ${hashApiKey(key)}`; // to read its usage
  const usage = await call(server.base, 'GET', `${API}/usage`, key);
  assert.deepEqual(usage.body.usage.map((r: any) => [r.status_code, r.credits_consumed]), [[429, 0], [200, 1]]);
});

test('monthly tiers reset lazily to their allowance on the 1st (UTC); free credits never reset', async () => {
  const { sql } = server.service.database;
  const starter = await server.newKey('starter');
  await sql`UPDATE api_keys SET credits = 7, credits_period = date_trunc('month', now() AT TIME ZONE 'UTC')::date - interval '1 month' WHERE key_hash = ${hashApiKey(starter)}`;
  const reset = await call(server.base, 'GET', `${API}/me`, starter);
  assert.equal(reset.body.credits_remaining, 300);
  const free = await server.newKey('free');
  await sql`UPDATE api_keys SET credits = 7 WHERE key_hash = ${hashApiKey(free)}`;
  assert.equal((await call(server.base, 'GET', `${API}/me`, free)).body.credits_remaining, 7);
});

test('reservations of a process whose heartbeat stopped are refunded by the sweep; a live process keeps its own', async () => {
  const { sql } = server.service.database;
  const key = await server.newKey('starter');
  const [row] = await sql`SELECT id FROM api_keys WHERE key_hash = ${hashApiKey(key)}`;
  await sql`UPDATE api_keys SET credits = credits - 3 WHERE id = ${row.id}`;
  const [dead] = await sql`INSERT INTO server_processes (host, pid, heartbeat_at) VALUES ('gone', 1, now() - interval '1 minute') RETURNING id`;
  const [live] = await sql`INSERT INTO server_processes (host, pid) VALUES ('here', 2) RETURNING id`;
  await sql`INSERT INTO credit_reservations (key_id, amount, process_id) VALUES (${row.id}, 2, ${dead.id}), (${row.id}, 1, ${live.id})`;
  const { settleDeadProcesses } = await import('../billing/processes.ts');
  await settleDeadProcesses(sql); // the server's own sweep may have come first: either settles it once
  assert.equal(await balance(key), 299);
  assert.equal((await sql`SELECT count(*)::int AS n FROM server_processes WHERE id = ${dead.id}`)[0].n, 0);
  await sql`DELETE FROM credit_reservations WHERE process_id = ${live.id}`;
  await sql`DELETE FROM server_processes WHERE id = ${live.id}`;
});
