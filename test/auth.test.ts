// Authentication: every 401 cause, and GET /me for a valid key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { revokeApiKey } from '../billing/api-keys.ts';
import { bearerToken } from '../billing/admission.ts';

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

/** GET /me with this Authorization value sent as latin1 bytes on a raw socket (fetch would refuse or re-encode them). */
function rawMe(authorization: string): Promise<{ status: number; body: any }> {
  const { port } = new URL(server.base);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect(Number(port), '127.0.0.1', () =>
      socket.write(Buffer.from(`GET ${API}/me HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\nConnection: close\r\n\r\n`, 'latin1')));
    socket.on('data', (d) => (answer += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body] = answer.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1.1 (\d+)/.exec(head)?.[1]), body: body ? JSON.parse(body) : undefined });
    });
  });
}

test('the Authorization header is exactly "Bearer", spaces and the key: anything else is a malformed header', () => {
  const key = 'mla_' + 'A'.repeat(43);
  for (const ok of [`Bearer ${key}`, `bearer   ${key}  `, `BEARER ${key}`]) assert.equal(bearerToken(ok), key, JSON.stringify(ok));
  const malformed = [
    `Bearer ${key}\t`, `Bearer ${key}\xa0`, `Bearer ${key}\xff`, `Bearer ${key}\r\n`, `Bearer ${key}\u3000`, `Bearer ${key}\ufeff`,
    `Bearer\t${key}`, `Bearer\xa0${key}`, ` Bearer ${key}`, `Bearer ${key} x`, `Bearer ${key}\xa0x`, `Bearer${key}`, 'Bearer ', `Token ${key}`,
  ];
  for (const header of malformed) assert.equal(bearerToken(header), undefined, JSON.stringify(header));
});

test('trailing garbage after the key, in any bytes, is 401 over the wire', async () => {
  const key = await server.newKey('starter');
  for (const garbage of [' x', '\xa0x', '\xffx', '\tx', '\x7f', '\xa0\xa0;', ' \xff\xfe\xfdjunk']) {
    const response = await rawMe(`Bearer ${key}${garbage}`);
    assert.equal(response.status, 401, JSON.stringify(garbage));
    assert.equal(response.body.code, 'unauthorized');
    assert.match(response.body.message, /malformed (Authorization header|API key)/);
  }
  assert.equal((await rawMe(`Bearer ${key}`)).status, 200);
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
    // Used by this request: between its start and its reply (a second either way for the two clocks' rounding).
    const lastUsed = Date.parse(response.body.last_used_at);
    assert.ok(lastUsed >= before - 1000 && lastUsed <= Date.now() + 1000, `last used ${response.body.last_used_at}`);
    assert.equal(response.headers.get('x-credits-remaining'), String(want.credits));
    assert.equal(response.headers.get('x-ratelimit-limit'), String(want.perMinute));
    assert.equal(response.headers.get('x-ratelimit-remaining'), String(want.perMinute - 1));
    assert.equal(response.headers.get('x-ratelimit-limit-daily'), want.perDay === null ? 'unlimited' : String(want.perDay));
    assert.ok(response.headers.get('x-request-id'));
  }
});
