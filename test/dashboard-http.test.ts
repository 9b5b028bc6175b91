// The dashboard over real HTTP (issue 18): pages and their headers, sign-in with its CSRF token,
// sessions (cookie attributes, expiry, sign-out, one-time passwords), throttled wrong passwords
// without account enumeration, keys made and revoked, and two accounts that cannot reach each
// other's keys, usage or licenses. The catalog calls bill exactly as the API does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startTestServer, type TestServer } from './support/server.ts';
import { API } from './support/http.ts';
import { climaxPiece } from './support/synth.ts';
import { ingestSignals } from './support/ingest.ts';
import { login, newAccount, signIn, TEST_PASSWORD, type DashboardClient } from './support/dashboard.ts';
import { createAccount } from '../billing/accounts.ts';

let server: TestServer;
let trackId: string;
let logged = '';

before(async () => {
  const sink = new Writable({ write(chunk, _encoding, done) { logged += chunk; done(); } });
  server = await startTestServer({}, pino({ level: 'info' }, sink));
  await ingestSignals({
    sql: server.service.database.sql, pool: server.service.engine, storage: server.service.storage,
    tracks: [{ file: 'drums.mp3', signal: climaxPiece(120, 45, 25), metadata: { title: 'Dashboard Drums', artist: 'Test Artist', genre: 'Rock' } }],
  });
  [{ id: trackId }] = await server.service.database.sql`SELECT id FROM tracks`;
});
after(() => server.stop());

const sql = () => server.service.database.sql;
const me = (key: string) => fetch(`${server.base}${API}/me`, { headers: { authorization: `Bearer ${key}` } });

test('pages need a session; every dashboard response has a CSP of this origin only', async () => {
  const page = await fetch(`${server.base}/dashboard/keys`, { redirect: 'manual' });
  assert.equal(page.status, 303);
  assert.equal(page.headers.get('location'), '/dashboard/login');
  for (const url of ['/dashboard/login', '/dashboard/assets/dashboard.css', '/dashboard/assets/api.js', '/dashboard/api/keys', '/dashboard/assets/nope.js']) {
    const response = await fetch(`${server.base}${url}`, { redirect: 'manual' });
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'; script-src 'self'; style-src 'self'/, url);
    assert.doesNotMatch(csp, /https?:|\*/, `${url}: no other origin`);
    assert.equal(response.headers.get('cache-control'), 'no-store');
  }
  const missing = await fetch(`${server.base}/dashboard/assets/nope.js`);
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).message, 'no dashboard asset "nope.js"');
  const api = await fetch(`${server.base}/dashboard/api/keys`);
  assert.equal(api.status, 401);
  assert.equal((await api.json()).code, 'unauthorized');
});

test('sign-in: the form token is required, the cookie is HttpOnly, SameSite=Strict, Secure unless local', async () => {
  await newAccount(sql(), 'cookie@example.com');
  const noToken = await fetch(`${server.base}/dashboard/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'cookie@example.com', password: TEST_PASSWORD }) });
  assert.equal(noToken.status, 403);
  assert.equal((await noToken.json()).code, 'csrf_token_invalid');
  // Submitted before its script runs (or without script), the form posts: the password never goes into a URL.
  const page = await (await fetch(`${server.base}/dashboard/login`)).text();
  assert.match(page, /<form id="login" method="post" action="\/dashboard\/api\/login"/);
  const formPost = await fetch(`${server.base}/dashboard/api/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `email=cookie%40example.com&password=${TEST_PASSWORD}` });
  assert.equal(formPost.status, 403, 'refused without the token, and signs nobody in');
  const local = await login(server.base, 'Cookie@Example.com', TEST_PASSWORD);
  assert.equal(local.status, 200);
  const cookie = local.headers.get('set-cookie')!;
  assert.match(cookie, /^mla_session=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict; Max-Age=43\d{3}$/);
  assert.match(await cookieForHost('music.example.com'), /; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
  const [row] = await sql()`SELECT count(*)::integer AS n FROM dashboard_sessions WHERE token_hash = sha256(${cookie.split(';')[0].split('=')[1]}::bytea)`;
  assert.equal(row.n, 1, 'only the token hash is stored');
  const bad = await login(server.base, 'cookie@example.com', '');
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).message, 'password is required (a string)');
});

test('a key made in the dashboard works on the API until it is revoked there; CSRF checked on each change', async () => {
  await newAccount(sql(), 'keys@example.com');
  const client = await signIn(server.base, sql(), 'keys@example.com');
  const withoutToken = await client.call('POST', '/dashboard/api/keys', { name: 'My app' }, { csrf: null });
  assert.equal(withoutToken.status, 403);
  assert.equal((await withoutToken.json()).message, 'missing X-CSRF-Token header: send the csrf_token of GET /dashboard/api/session');
  const wrongToken = await client.call('POST', '/dashboard/api/keys', { name: 'My app' }, { csrf: 'x'.repeat(43) });
  assert.equal(wrongToken.status, 403);
  assert.equal((await client.json('GET', '/dashboard/api/keys')).keys.length, 0, 'refused calls changed nothing');
  for (const invisible of ['  ', '\u200b', '\u00a0\u200b\u2060']) {
    const noName = await client.call('POST', '/dashboard/api/keys', { name: invisible });
    assert.equal(noName.status, 400, JSON.stringify(invisible));
    assert.match((await noName.json()).message, /^name is required/);
  }
  for (const unshowable of ['a\u0001b', 'line\nbreak', '\u202eppa yM', 'a\ud800']) {
    const refused = await client.call('POST', '/dashboard/api/keys', { name: unshowable });
    assert.equal(refused.status, 400, JSON.stringify(unshowable));
    assert.match((await refused.json()).message, /^name holds a control character/);
  }

  // A NUL character (no field takes one, nor PostgreSQL text): a 400 naming the field, nothing made.
  const nul = await client.call('POST', '/dashboard/api/keys', { name: 'My\u0000app' });
  assert.equal(nul.status, 400);
  assert.match((await nul.json()).message, /^name holds a NUL character/);
  const nulEmail = await login(server.base, 'keys\u0000@example.com', TEST_PASSWORD);
  assert.equal(nulEmail.status, 400);
  assert.match((await nulEmail.json()).message, /^email holds a NUL character/);
  const nulEndpoint = await client.call('GET', '/dashboard/api/usage?endpoint=%2Fsearch%00');
  assert.equal(nulEndpoint.status, 400);
  assert.match((await nulEndpoint.json()).message, /^endpoint must be an endpoint name/);
  const farKey = await client.call('GET', '/dashboard/api/usage?key_id=99999999999'); // past 10 digits, still an id
  assert.equal(farKey.status, 200);
  assert.equal((await farKey.json()).usage.length, 0);
  const withQuery = await client.call('POST', '/dashboard/api/keys?limit=3', { name: 'My app' });
  assert.equal(withQuery.status, 400);
  assert.equal((await withQuery.json()).message, 'unknown query parameter "limit"; this endpoint takes no query parameters');
  assert.equal((await client.json('GET', '/dashboard/api/keys')).keys.length, 0, 'refused calls changed nothing');

  const created = await client.json('POST', '/dashboard/api/keys', { name: 'My app' });
  assert.match(created.key, /^mla_[A-Za-z0-9_-]{43}$/);
  assert.equal((await me(created.key)).status, 200);
  const { keys } = await client.json('GET', '/dashboard/api/keys');
  assert.deepEqual(keys.map((k: any) => [k.name, k.prefix, k.status, k.tier]), [['My app', created.key.slice(0, 12), 'active', 'starter']]);
  assert.ok(keys[0].last_used_at, 'last used shown');
  assert.ok(!JSON.stringify(keys).includes(created.key), 'the list never shows the key again');

  const revoked = await client.call('POST', `/dashboard/api/keys/${created.id}/revoke`, undefined, { csrf: null });
  assert.equal(revoked.status, 403);
  assert.equal((await me(created.key)).status, 200);
  await client.json('POST', `/dashboard/api/keys/${created.id}/revoke`);
  const after = await me(created.key);
  assert.equal(after.status, 401);
  assert.equal((await after.json()).message, 'API key has been revoked');
  // The catalog page's call with the revoked key: the key's 401, which names no sign-in page (the
  // session is fine); a call without the session's cookie does name it.
  const withRevoked = await client.call('POST', `/dashboard/api/catalog/search?key_id=${created.id}`, { query: 'calm' });
  assert.equal(withRevoked.status, 401);
  const revokedBody = await withRevoked.json();
  assert.equal(revokedBody.message, 'API key has been revoked');
  assert.equal(revokedBody.sign_in, undefined);
  const signedOut = await fetch(`${server.base}/dashboard/api/keys`);
  assert.equal(signedOut.status, 401);
  assert.equal((await signedOut.json()).sign_in, '/dashboard/login');
  const again = await client.call('POST', `/dashboard/api/keys/${created.id}/revoke`);
  assert.equal(again.status, 404);
  assert.ok(!logged.includes(created.key), 'the key is never logged');
});

test('wrong passwords sent in parallel are checked one after another: five are, the rest wait', async () => {
  await newAccount(sql(), 'iris@example.com');
  const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => login(server.base, 'iris@example.com', `wrong password ${i}`)));
  assert.deepEqual(responses.map((r) => r.status).sort(), [...Array(5).fill(401), ...Array(7).fill(429)]);
  // Every spelling that reaches the account shares its count: the throttle lowercases as the
  // account lookup does, in PostgreSQL ("İ" is "i" there, "i̇" in JavaScript).
  for (const email of ['IRIS@example.com', 'İris@example.com', 'irİs@example.com']) {
    const [{ same }] = await sql()`SELECT lower(${email}) = lower('iris@example.com') AS same`;
    assert.equal((await login(server.base, email, 'wrong password')).status, same ? 429 : 401, email);
  }
  await sql()`DELETE FROM login_failures WHERE subject LIKE 'address:%'`; // this address's failures: not the next tests'
});

test('five wrong passwords: the sixth attempt waits, with the same answer for an account that does not exist', async () => {
  await newAccount(sql(), 'guess@example.com');
  const attempts = async (email: string) => {
    const out: [number, string][] = [];
    for (let i = 0; i < 6; i++) {
      const response = await login(server.base, email, `wrong password ${i}`);
      out.push([response.status, (await response.json()).message]);
    }
    return out;
  };
  const real = await attempts('guess@example.com');
  const lockedAt = performance.now();
  const ghost = await attempts('ghost@example.com');
  assert.deepEqual(real.slice(0, 5), Array(5).fill([401, 'wrong email or password']));
  assert.equal(real[5][0], 429);
  assert.match(real[5][1], /^too many failed sign-in attempts; try again in (29|30) s$/);
  assert.deepEqual(ghost.map(([s]) => s), real.map(([s]) => s), 'no account enumeration');
  const right = await login(server.base, 'guess@example.com', TEST_PASSWORD);
  assert.equal(right.status, 429, 'even the right password waits');
  // The first wait (30 s) counts down from the fifth failure: the six ghost attempts (each hashes a
  // password) take a second or more on a slow machine, so the wait left is 30 s less that time.
  const waited = Math.ceil((performance.now() - lockedAt) / 1000);
  const retryAfter = Number(right.headers.get('retry-after'));
  assert.ok(retryAfter <= 30 && retryAfter >= 30 - waited - 1, `Retry-After ${retryAfter} after ${waited} s`);
});

test('one-time password: only the password can be changed first; a change signs other sessions out', async () => {
  const created = (await createAccount(sql(), { email: 'fresh@example.com', tier: 'free' }))!;
  const first = await signIn(server.base, sql(), 'fresh@example.com', created.password);
  const other = await signIn(server.base, sql(), 'fresh@example.com', created.password);
  const blocked = await first.call('GET', '/dashboard/api/keys');
  assert.equal(blocked.status, 403);
  assert.equal((await blocked.json()).code, 'password_change_required');
  const page = await first.call('GET', '/dashboard', undefined, { headers: {} });
  assert.equal(page.status, 200, 'fetch follows the redirect to the password page');
  assert.match(page.url, /\/dashboard\/password$/);
  const short = await first.call('POST', '/dashboard/api/password', { current_password: created.password, new_password: 'short' });
  assert.equal((await short.json()).message, 'the new password must be at least 10 characters long');
  const fiveEmoji = await first.call('POST', '/dashboard/api/password', { current_password: created.password, new_password: '😀😀😀😀😀' }); // 10 UTF-16 units, 5 characters
  assert.equal((await fiveEmoji.json()).message, 'the new password must be at least 10 characters long');
  const wrong = await first.call('POST', '/dashboard/api/password', { current_password: 'not it at all', new_password: 'my own password' });
  assert.equal(wrong.status, 403);
  await first.json('POST', '/dashboard/api/password', { current_password: created.password, new_password: 'my own password' });
  assert.equal((await first.call('GET', '/dashboard/api/keys')).status, 200);
  assert.equal((await other.call('GET', '/dashboard/api/session')).status, 401, 'the other session is signed out');
  assert.equal((await login(server.base, 'fresh@example.com', 'my own password')).status, 200);
});

test('sign-out and expiry end a session', async () => {
  await newAccount(sql(), 'session@example.com');
  const leaving = await signIn(server.base, sql(), 'session@example.com');
  const session = await leaving.json('GET', '/dashboard/api/session');
  assert.deepEqual([session.email, session.must_change_password, session.csrf_token], ['session@example.com', false, leaving.csrf]);
  assert.equal((await leaving.call('POST', '/dashboard/api/logout', undefined, { csrf: null })).status, 403);
  const out = await leaving.call('POST', '/dashboard/api/logout');
  assert.match(out.headers.get('set-cookie')!, /^mla_session=; Path=\/dashboard; HttpOnly; SameSite=Strict; Max-Age=0$/);
  assert.equal((await leaving.call('GET', '/dashboard/api/session')).status, 401);

  const expiring = await signIn(server.base, sql(), 'session@example.com');
  assert.equal((await expiring.call('GET', '/dashboard/api/session')).status, 200);
  await sql()`UPDATE dashboard_sessions SET expires_at = now() - interval '1 second' WHERE account_id = ${expiring.accountId}`;
  const expired = await expiring.call('GET', '/dashboard/api/session');
  assert.equal(expired.status, 401);
  assert.match((await expired.json()).message, /expired/);
});

/** The login form's cookie for a request made to another Host (fetch may not set Host). */
function cookieForHost(host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get(`${server.base}/dashboard/api/login-token`, { headers: { host } }, (response) => {
      response.resume();
      resolve(String(response.headers['set-cookie']));
    }).on('error', reject);
  });
}

async function downloadThroughDashboard(client: DashboardClient, keyId: number) {
  const response = await client.call('POST', `/dashboard/api/catalog/download-track?key_id=${keyId}`, { track_id: trackId, duration_seconds: 12 });
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get('content-type'), 'audio/mpeg');
  assert.match(response.headers.get('content-security-policy')!, /^default-src 'none'/);
  assert.ok((await response.arrayBuffer()).byteLength > 10_000);
  return response.headers;
}

test('a clip from the dashboard is billed as the API bills it: credit, usage record, license', async () => {
  await newAccount(sql(), 'buyer@example.com');
  const client = await signIn(server.base, sql(), 'buyer@example.com');
  const { id, key } = await client.json('POST', '/dashboard/api/keys', { name: 'shop' });
  const before = await (await me(key)).json();
  const noToken = await client.call('POST', `/dashboard/api/catalog/download-track?key_id=${id}`, { track_id: trackId }, { csrf: null });
  assert.equal(noToken.status, 403);
  const headers = await downloadThroughDashboard(client, id);
  assert.equal(Number(headers.get('x-credits-remaining')), before.credits_remaining - 1);
  assert.equal((await (await me(key)).json()).credits_remaining, before.credits_remaining - 1);
  const licenseId = headers.get('x-license-id')!;
  const viaApi = await fetch(`${server.base}${API}/licenses/${licenseId}`, { headers: { authorization: `Bearer ${key}` } });
  assert.deepEqual(await client.json('GET', `/dashboard/api/licenses/${licenseId}`), await viaApi.json(), 'the same certificate');
  const usage = await client.json('GET', `/dashboard/api/usage?key_id=${id}&endpoint=/download-track`);
  assert.deepEqual(usage.usage.map((u: any) => [u.endpoint, u.status_code, u.credits_consumed, u.key.name]), [['/download-track', 200, 1, 'shop']]);
  const licenses = await client.json('GET', '/dashboard/api/licenses');
  assert.deepEqual(licenses.licenses.map((l: any) => [l.license_id, l.track_id, l.clip.duration_seconds]), [[licenseId, trackId, 12]]);
  const missingKey = await client.call('POST', '/dashboard/api/catalog/clip-plan', { track_id: trackId });
  assert.equal((await missingKey.json()).message, 'key_id is required: the id of one of your API keys (GET /dashboard/api/keys)');
  const plan = await client.json('POST', `/dashboard/api/catalog/clip-plan?key_id=${id}`, { track_id: trackId, duration_seconds: 12, hit_point_seconds: 6 });
  assert.equal(plan.duration_seconds, 12);
  const badBody = await client.call('POST', `/dashboard/api/catalog/download-track?key_id=${id}`, { track_id: trackId, duration_seconds: 5 });
  assert.equal(badBody.status, 400);
  assert.equal((await badBody.json()).message, 'duration_seconds must be from 10 to 300, got 5');
});

test('two accounts never reach each other\'s keys, usage or licenses', async () => {
  await newAccount(sql(), 'alice@example.com');
  await newAccount(sql(), 'bob@example.com');
  const alice = await signIn(server.base, sql(), 'alice@example.com');
  const bob = await signIn(server.base, sql(), 'bob@example.com');
  const aliceKey = await alice.json('POST', '/dashboard/api/keys', { name: 'alice key' });
  const headers = await downloadThroughDashboard(alice, aliceKey.id);
  const licenseId = headers.get('x-license-id')!;

  assert.deepEqual((await bob.json('GET', '/dashboard/api/keys')).keys, []);
  const revoke = await bob.call('POST', `/dashboard/api/keys/${aliceKey.id}/revoke`);
  assert.equal(revoke.status, 404);
  assert.equal((await me(aliceKey.key)).status, 200, 'still active');
  const usage = await bob.json('GET', `/dashboard/api/usage?key_id=${aliceKey.id}`);
  assert.deepEqual([usage.usage, usage.total_count], [[], 0]);
  assert.equal((await bob.json('GET', '/dashboard/api/usage')).total_count, 0);
  assert.equal((await bob.json('GET', '/dashboard/api/licenses')).total_count, 0);
  const certificate = await bob.call('GET', `/dashboard/api/licenses/${licenseId}`);
  assert.equal(certificate.status, 404);
  assert.equal((await certificate.json()).message, `no license "${licenseId}" in this account`);
  // An id of no license's shape is a 400, as on the API.
  for (const id of ['lic_', licenseId.toUpperCase(), `${licenseId}%00`, 'l'.repeat(300)]) {
    const malformed = await bob.call('GET', `/dashboard/api/licenses/${id}`);
    assert.equal(malformed.status, 400, id);
    assert.match((await malformed.json()).message, /^license id ".*"( \(\d+ characters\))? is malformed/);
  }
  const spend = await bob.call('POST', `/dashboard/api/catalog/download-track?key_id=${aliceKey.id}`, { track_id: trackId });
  assert.equal(spend.status, 404);
  assert.equal((await spend.json()).message, `no API key ${aliceKey.id} in this account`);
  const overview = await bob.json('GET', '/dashboard/api/overview');
  assert.deepEqual([overview.keys, overview.requests_this_month], [[], 0]);
  assert.equal((await alice.json('GET', '/dashboard/api/licenses')).total_count, 1);
});
