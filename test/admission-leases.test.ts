// Admission leases (billing/admission-leases.ts): a busy key is served mostly from memory,
// its headers still count exactly, the limit still holds, and revocation still takes effect at once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { hashApiKey, revokeApiKey } from '../billing/api-keys.ts';
import { createLeaseTable } from '../billing/admission-leases.ts';
import { movableClock } from './support/window-clock.ts';

const clock = movableClock();
let server: TestServer;
before(async () => (server = await startTestServer({ windowClock: clock })));
after(() => server.stop());

async function admitCalls(): Promise<number> {
  // Every admit_keys statement updates the rows of its keys; leased requests touch nothing.
  const [row] = await server.service.database.sql`SELECT n_tup_upd + n_tup_hot_upd AS n FROM pg_stat_user_tables WHERE relname = 'api_keys'`;
  return Number(row.n);
}

test('a busy key is mostly served from its lease, and its headers count down exactly', async () => {
  clock.toNextMinute(); // the whole test in one window
  const key = await server.newKey('pro'); // 300 per minute
  const before = await admitCalls();
  for (let i = 1; i <= 60; i++) {
    const response = await call(server.base, 'GET', `${API}/me`, key);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-ratelimit-remaining'), String(300 - i));
  }
  await new Promise((r) => setTimeout(r, 700)); // statistics are reported with a delay
  const statements = (await admitCalls()) - before;
  assert.ok(statements < 30, `${statements} key-row updates for 60 requests`);
  const [row] = await server.service.database.sql`SELECT minute_count FROM api_keys WHERE key_hash = ${hashApiKey(key)}`;
  assert.ok(row.minute_count >= 60 && row.minute_count <= 150, `minute_count ${row.minute_count}`);
});

test('with leases, 400 concurrent requests of one key within a minute admit exactly its 300', async () => {
  clock.toNextMinute(); // the whole test in one window
  const key = await server.newKey('pro');
  for (let i = 0; i < 20; i++) await call(server.base, 'GET', `${API}/me`, key); // builds a lease
  const responses = await Promise.all(Array.from({ length: 380 }, () => call(server.base, 'GET', `${API}/me`, key)));
  const statuses = new Map<number, number>();
  for (const { status } of responses) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const seen = JSON.stringify(Object.fromEntries(statuses));
  assert.ok([...statuses.keys()].every((status) => status === 200 || status === 429), `statuses ${seen}`);
  assert.equal(20 + (statuses.get(200) ?? 0), 300, `statuses of the 380: ${seen}`);
});

test('revoking a key that holds a lease refuses it at once', async () => {
  clock.toNextMinute(); // the whole test in one window
  const key = await server.newKey('pro');
  for (let i = 0; i < 30; i++) assert.equal((await call(server.base, 'GET', `${API}/me`, key)).status, 200);
  assert.equal(await revokeApiKey(server.service.database.sql, key.slice(0, 12)), true);
  await new Promise((r) => setTimeout(r, 50)); // the NOTIFY travels on its own connection
  const response = await call(server.base, 'GET', `${API}/me`, key);
  assert.equal(response.status, 401);
  assert.match(response.body.message, /revoked/);
});

test('the lease table tells a key it can admit at once (holds) from one it only expects to admit (peek)', () => {
  const leases = createLeaseTable();
  const now = Date.now();
  const info = {
    keyId: 1, tier: 'pro', credits: 10, monthlyCredits: 50000, intentExtraction: true, createdAt: new Date(now), expiresAt: null,
    requestsPerMinute: 300, requestsPerDay: null,
  };
  const minuteWindow = new Date(now - (now % 60_000));
  assert.equal(leases.holds('k', now), false);
  assert.equal(leases.peek('k', now), undefined);
  leases.settle('k', Buffer.alloc(32), { info, minuteWindow, minuteCount: 3, dayCount: 3, granted: 1, leased: 2, sentAt: now }, now);
  assert.equal(leases.holds('k', now), true);
  assert.ok(leases.take('k', now));
  assert.ok(leases.take('k', now));
  assert.equal(leases.holds('k', now), false, 'both leased admissions spent');
  assert.equal(leases.take('k', now), undefined);
  assert.equal(leases.peek('k', now)?.keyId, 1, 'still expected to be admitted: its windows have room');
  leases.settle('k', Buffer.alloc(32), { info, minuteWindow, minuteCount: 300, dayCount: 300, granted: 1, leased: 0, sentAt: now }, now);
  assert.equal(leases.peek('k', now), undefined, 'a key at its minute limit is not expected to be admitted');
});


test('a grant that replaces a lease keeps its unused admissions (same minute) or hands them back (an older minute)', () => {
  const leases = createLeaseTable();
  const now = Date.now();
  const info = {
    keyId: 1, tier: 'pro', credits: 10, monthlyCredits: 50000, intentExtraction: true, createdAt: new Date(now), expiresAt: null,
    requestsPerMinute: 300, requestsPerDay: null,
  };
  const minuteWindow = new Date(now - (now % 60_000));
  leases.settle('k', Buffer.alloc(32), { info, minuteWindow, minuteCount: 12, dayCount: 12, granted: 2, leased: 10, sentAt: now }, now);
  // A second batch of the same key was already in flight: its grant settles after the first.
  const second = leases.settle('k', Buffer.alloc(32), { info, minuteWindow, minuteCount: 25, dayCount: 25, granted: 1, leased: 12, sentAt: now }, now);
  assert.equal(second.handBack.returned, 0);
  const seen = [1, 2, ...second.counted.map((c) => c.minuteCount)]; // the first grant's two requests, the second's one
  for (let taken = leases.take('k', now); taken; taken = leases.take('k', now)) seen.push(taken.minuteCount);
  assert.equal(seen.length, 25, 'the first lease\'s 10 and the second\'s 12 spendable');
  // Each admission is told its own position in the minute's count, once: headers count exactly.
  assert.deepEqual(seen.sort((a, b) => a - b), Array.from({ length: 25 }, (_, i) => i + 1));
  leases.settle('k', Buffer.alloc(32), { info, minuteWindow, minuteCount: 30, dayCount: 30, granted: 1, leased: 4, sentAt: now }, now);
  const nextMinute = new Date(minuteWindow.getTime() + 60_000);
  const third = leases.settle('k', Buffer.alloc(32), { info, minuteWindow: nextMinute, minuteCount: 1, dayCount: 31, granted: 1, leased: 0, sentAt: now + 60_000 }, now + 60_000);
  assert.equal(third.handBack.returned, 4, 'an older minute\'s unused admissions go back (they count in the day)');
});

test('the balance a lease shows is the newest heard: by version among ledger statements, a grant when sent after them', () => {
  const leases = createLeaseTable();
  const now = Date.now();
  const info = {
    keyId: 7, tier: 'pro', credits: 100, monthlyCredits: 50000, intentExtraction: true, createdAt: new Date(now), expiresAt: null,
    requestsPerMinute: 300, requestsPerDay: null,
  };
  const minuteWindow = new Date(now - (now % 60_000));
  const grant = (credits: number, sentAt: number) => ({ info: { ...info, credits }, minuteWindow, minuteCount: 3, dayCount: 3, granted: 1, leased: 2, sentAt });
  leases.settle('k', Buffer.alloc(32), grant(100, now), now);
  leases.noteCredits(7, { credits: 97, version: 13 }, now + 1);
  leases.noteCredits(7, { credits: 98, version: 12 }, now + 2); // an older statement heard later
  assert.equal(leases.peek('k', now + 3)?.credits, 97);
  // A grant whose statement was sent before the newest note arrived may have read an older balance.
  leases.settle('k', Buffer.alloc(32), grant(99, now + 1), now + 4);
  assert.equal(leases.peek('k', now + 4)?.credits, 97);
  // One sent after it read the balance later: it is the newer.
  leases.settle('k', Buffer.alloc(32), grant(150, now + 5), now + 6);
  assert.equal(leases.peek('k', now + 6)?.credits, 150);
  leases.noteCredits(7, { credits: 149, version: 15 }, now + 7);
  assert.equal(leases.peek('k', now + 7)?.credits, 149);
});
