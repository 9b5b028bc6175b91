// GET /usage: one record per authenticated request, newest first, paging and its validation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';

let server: TestServer;
before(async () => (server = await startTestServer()));
after(() => server.stop());

test('records every authenticated request with endpoint, status, credits and time, newest first', async () => {
  const key = await server.newKey('pro');
  const started = Date.now();
  await call(server.base, 'GET', `${API}/me`, key);
  await call(server.base, 'POST', `${API}/_test/paid`, key, {});
  await call(server.base, 'POST', `${API}/_test/paid`, key, { fail: true });
  await call(server.base, 'GET', `${API}/usage?limit=abc`, key);
  const page = await call(server.base, 'GET', `${API}/usage`, key);
  assert.equal(page.status, 200);
  assert.equal(page.body.total_count, 4);
  assert.equal(page.body.offset, 0);
  assert.equal(page.body.limit, 50);
  assert.deepEqual(
    page.body.usage.map((r: any) => [r.endpoint, r.status_code, r.credits_consumed]),
    [['/usage', 400, 0], ['/_test/paid', 503, 0], ['/_test/paid', 200, 1], ['/me', 200, 0]],
  );
  for (const record of page.body.usage) {
    assert.ok(Date.parse(record.timestamp) >= started - 1000);
    assert.equal(typeof record.response_time_ms, 'number');
    assert.ok(record.response_time_ms >= 0);
  }
  const times = page.body.usage.map((r: any) => Date.parse(r.timestamp));
  assert.deepEqual(times, [...times].sort((a, b) => b - a));
});

test('paging: limit and offset walk the history; the last page is shorter; beyond the end is empty', async () => {
  const key = await server.newKey('pro');
  for (let i = 0; i < 10; i++) await call(server.base, 'GET', `${API}/me`, key);
  // Each /usage call adds its own record after answering, so the history grows by one per page read.
  const first = await call(server.base, 'GET', `${API}/usage?limit=4`, key);
  assert.equal(first.body.total_count, 10);
  assert.equal(first.body.usage.length, 4);
  const second = await call(server.base, 'GET', `${API}/usage?limit=4&offset=4`, key);
  assert.equal(second.body.total_count, 11);
  assert.equal(second.body.usage.length, 4);
  const last = await call(server.base, 'GET', `${API}/usage?limit=4&offset=8`, key);
  assert.equal(last.body.total_count, 12);
  assert.equal(last.body.usage.length, 4);
  const shorter = await call(server.base, 'GET', `${API}/usage?limit=4&offset=11`, key);
  assert.equal(shorter.body.usage.length, 2);
  assert.ok(shorter.body.usage.length < shorter.body.limit);
  const beyond = await call(server.base, 'GET', `${API}/usage?offset=500`, key);
  assert.equal(beyond.status, 200);
  assert.deepEqual(beyond.body.usage, []);
  assert.equal(beyond.body.offset, 500);
});

test('another key never sees these records', async () => {
  const mine = await server.newKey('pro');
  const theirs = await server.newKey('pro');
  await call(server.base, 'GET', `${API}/me`, mine);
  const page = await call(server.base, 'GET', `${API}/usage`, theirs);
  assert.equal(page.body.total_count, 0);
});

test('bad paging parameters are 400 invalid_parameters naming the parameter, and cost nothing', async () => {
  const key = await server.newKey('pro');
  const cases = ['limit=0', 'limit=101', 'limit=-1', 'limit=1.5', 'limit=abc', 'limit=', 'offset=-1', 'offset=x', 'offset=1e3', 'limit=5&limit=6', 'page=2'];
  for (const query of cases) {
    const response = await call(server.base, 'GET', `${API}/usage?${query}`, key);
    assert.equal(response.status, 400, query);
    assert.equal(response.body.code, 'invalid_parameters', query);
    const name = query.split('=')[0];
    assert.match(response.body.message, new RegExp(name), query);
    assert.equal(response.headers.get('x-credits-remaining'), '50000');
  }
});
