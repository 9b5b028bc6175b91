// Authentication: every 401 cause, and GET /me for a valid key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { revokeApiKey } from '../billing/api-keys.ts';

let server: TestServer;
before(async () => (server = await startTestServer()));
after(() => server.stop());

function assertUnauthorized(response: Awaited<ReturnType<typeof call>>, messagePart: RegExp) {
  assert.equal(response.status, 401);
  assert.equal(response.body.code, 'unauthorized');
  assert.equal(typeof response.body.error, 'string');
  assert.match(response.body.message, messagePart);
  assert.equal(response.body.request_id, response.headers.get('x-request-id'));
}

test('missing Authorization header is 401', async () => {
  assertUnauthorized(await call(server.base, 'GET', `${API}/me`), /missing Authorization/);
});

test('non-Bearer Authorization header is 401', async () => {
  const response = await fetch(`${server.base}${API}/me`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
  assertUnauthorized({ status: response.status, headers: response.headers, body: await response.json() }, /malformed Authorization/);
});

test('malformed key is 401', async () => {
  assertUnauthorized(await call(server.base, 'GET', `${API}/me`, 'not-a-key'), /malformed API key/);
});

test('unknown key is 401', async () => {
  const unknown = 'mla_' + 'A'.repeat(43);
  assertUnauthorized(await call(server.base, 'GET', `${API}/me`, unknown), /unknown API key/);
});

test('revoked key is 401, at once', async () => {
  const key = await server.newKey('starter');
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).status, 200);
  assert.equal(await revokeApiKey(server.service.database.sql, key.slice(0, 12)), true);
  assertUnauthorized(await call(server.base, 'GET', `${API}/me`, key), /revoked/);
});

test('expired key is 401', async () => {
  const key = await server.newKey('starter', { expiresAt: new Date(Date.now() - 1000) });
  assertUnauthorized(await call(server.base, 'GET', `${API}/me`, key), /expired/);
});

test('a key that expires later works', async () => {
  const key = await server.newKey('starter', { expiresAt: new Date(Date.now() + 86_400_000) });
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).status, 200);
});

test('GET /me returns the account metadata of spec 2.5 for each tier', async () => {
  const expected = {
    free: { credits: 50, allowance: 0, perMinute: 5, perDay: 50 },
    starter: { credits: 300, allowance: 300, perMinute: 10, perDay: 1000 },
    pro: { credits: 50000, allowance: 50000, perMinute: 300, perDay: null },
  } as const;
  for (const [tier, want] of Object.entries(expected)) {
    const key = await server.newKey(tier);
    const before = Date.now();
    const response = await call(server.base, 'GET', `${API}/me`, key);
    assert.equal(response.status, 200);
    assert.equal(response.body.tier, tier);
    assert.equal(response.body.credits_remaining, want.credits);
    assert.equal(response.body.monthly_allowance, want.allowance);
    assert.deepEqual(response.body.rate_limit, { requests_per_minute: want.perMinute, requests_per_day: want.perDay });
    assert.ok(Date.parse(response.body.created_at) <= Date.parse(response.body.last_used_at));
    assert.ok(Math.abs(Date.parse(response.body.last_used_at) - before) < 5000);
    assert.equal(response.headers.get('x-credits-remaining'), String(want.credits));
    assert.equal(response.headers.get('x-ratelimit-limit'), String(want.perMinute));
    assert.equal(response.headers.get('x-ratelimit-remaining'), String(want.perMinute - 1));
    assert.equal(response.headers.get('x-ratelimit-limit-daily'), want.perDay === null ? 'unlimited' : String(want.perDay));
    assert.ok(response.headers.get('x-request-id'));
  }
});
