// The IETF RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10) beside
// spec 8.3's X-RateLimit-*: the same counts through a whole window, 429s included.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call, type JsonResponse } from './support/http.ts';
import { hashApiKey } from '../billing/api-keys.ts';
import { movableClock } from './support/window-clock.ts';

const clock = movableClock();
let server: TestServer;
before(async () => (server = await startTestServer({ windowClock: clock })));
after(() => server.stop());

/** A structured-field List of Items with Integer parameters: `"name";a=1;b=2, "other";a=3`. */
function parseList(field: string): Map<string, Record<string, number>> {
  const items = new Map<string, Record<string, number>>();
  for (const member of field.split(/,\s*/)) {
    const [name, ...params] = member.split(';');
    assert.match(name, /^"[a-z]+"$/, `item ${name} is a String`);
    const parsed: Record<string, number> = {};
    for (const param of params) {
      const match = /^([a-z]+)=(\d+)$/.exec(param);
      assert.ok(match, `parameter ${param} is key=Integer`);
      parsed[match[1]] = Number(match[2]);
    }
    items.set(name.slice(1, -1), parsed);
  }
  return items;
}

/** Checks both fields against the X-RateLimit-* headers of the same response; returns RateLimit's items. */
function assertAgree(response: JsonResponse, perMinute: number, perDay: number | null) {
  const policy = parseList(response.headers.get('ratelimit-policy')!);
  assert.deepEqual(policy.get('minute'), { q: perMinute, w: 60 });
  assert.deepEqual(policy.get('day'), perDay === null ? undefined : { q: perDay, w: 86_400 });
  assert.equal(policy.size, perDay === null ? 1 : 2);
  const limits = parseList(response.headers.get('ratelimit')!);
  const minute = limits.get('minute')!;
  assert.equal(minute.r, Number(response.headers.get('x-ratelimit-remaining')));
  assert.ok(minute.t >= 1 && minute.t <= 60, `minute t=${minute.t}`);
  assert.equal(response.headers.get('x-ratelimit-limit'), String(perMinute));
  const day = limits.get('day');
  if (perDay === null) {
    assert.equal(day, undefined);
    assert.equal(response.headers.get('x-ratelimit-remaining-daily'), 'unlimited');
  } else {
    assert.equal(day!.r, Number(response.headers.get('x-ratelimit-remaining-daily')));
    assert.ok(day!.t >= 1 && day!.t <= 86_400, `day t=${day!.t}`);
  }
  return { minute, day };
}

test('RateLimit fields count down with X-RateLimit-* through a window, then the 429s', async () => {
  const key = await server.newKey('free'); // 5 per minute, 50 per day
  clock.toNextMinute();
  for (let i = 1; i <= 5; i++) {
    const response = await call(server.base, 'GET', `${API}/me`, key);
    assert.equal(response.status, 200);
    const { minute, day } = assertAgree(response, 5, 50);
    assert.equal(minute.r, 5 - i);
    assert.equal(day!.r, 50 - i);
    // The minute's reset is the end of the UTC minute the request fell in.
    assert.ok(Math.abs(minute.t - (60 - new Date(clock.now()).getUTCSeconds())) <= 1, `minute t=${minute.t}`);
  }
  for (let i = 0; i < 2; i++) {
    const refused = await call(server.base, 'GET', `${API}/me`, key);
    assert.equal(refused.status, 429);
    const { minute, day } = assertAgree(refused, 5, 50);
    assert.equal(minute.r, 0);
    assert.equal(day!.r, 45); // a 429 is not counted
    // Retry-After is never earlier than the refused window's reset.
    assert.equal(minute.t, Number(refused.headers.get('retry-after')));
  }
});

test('a daily refusal: the day policy at 0, its reset equal to Retry-After', async () => {
  const key = await server.newKey('free');
  const { sql } = server.service.database;
  await sql`UPDATE api_keys SET day_window = ${clock.day()}::date, day_count = 50 WHERE key_hash = ${hashApiKey(key)}`;
  const refused = await call(server.base, 'GET', `${API}/me`, key);
  assert.equal(refused.status, 429);
  const { minute, day } = assertAgree(refused, 5, 50);
  assert.equal(day!.r, 0);
  assert.equal(minute.r, 0); // X-RateLimit-Remaining is 0 on every 429 (spec 7)
  assert.equal(day!.t, Number(refused.headers.get('retry-after')));
});

test('pro keys: one policy, the minute; errors carry the fields too; 401s have no key to count', async () => {
  const key = await server.newKey('pro');
  const ok = await call(server.base, 'GET', `${API}/me`, key);
  assertAgree(ok, 300, null);
  const starter = await server.newKey('starter');
  const invalid = await call(server.base, 'GET', `${API}/usage?limit=500`, starter);
  assert.equal(invalid.status, 400);
  assertAgree(invalid, 10, 1000);
  const unauthorized = await call(server.base, 'GET', `${API}/me`, 'mla_not-a-key');
  assert.equal(unauthorized.status, 401);
  assert.equal(unauthorized.headers.get('ratelimit'), null);
  assert.equal(unauthorized.headers.get('ratelimit-policy'), null);
});
