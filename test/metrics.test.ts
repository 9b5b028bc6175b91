// GET /metrics: off by default; with METRICS=1 on the API's port, with METRICS_PORT on its own;
// its figures move as requests happen (requests, credits, refusals, the clip cache, the engine).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';
import { movableClock } from './support/window-clock.ts';
import { API, call } from './support/http.ts';
import { ingestSignals } from './support/ingest.ts';
import { drumPattern } from './support/synth.ts';

const meteredClock = movableClock();
let plain: TestServer;
let metered: TestServer;
let apart: TestServer;
before(async () => {
  // One at a time, each kept as it starts: when one fails to start, `after` still stops those that
  // did (started together, a failed start left the others running, and the file, with the whole
  // test run, never ended); and a third of the connections open at once on a loaded machine.
  plain = await startTestServer();
  metered = await startTestServer({ metrics: 'main', windowClock: meteredClock });
  apart = await startTestServer({ metrics: 0 });
});
after(() => Promise.all([plain, metered, apart].map((s) => s?.stop())));

/** The sum of a metric's samples whose labels include `labels` (Prometheus text format). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const has = Object.entries(labels).every(([k, v]) => (match[2] ?? '').split(',').includes(`${k}="${v}"`));
    if (has) sum += Number(match[3]);
  }
  return sum;
}

async function scrape(base: string): Promise<string> {
  const response = await fetch(`${base}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
  return response.text();
}

test('/metrics is off unless asked for: a 404 like any unknown path', async () => {
  const response = await call(plain.base, 'GET', '/metrics');
  assert.equal(response.status, 404);
  assert.equal(response.body.code, 'not_found');
});

test('METRICS_PORT: /metrics on its own port, not on the API\'s', async () => {
  assert.ok(apart.service.metricsPort! > 0);
  const own = `http://127.0.0.1:${apart.service.metricsPort}`;
  assert.match(await scrape(own), /# TYPE mla_http_request_duration_seconds histogram/);
  assert.equal((await call(apart.base, 'GET', '/metrics')).status, 404);
  assert.equal((await call(own, 'GET', `${API}/me`)).status, 404); // only metrics there
});

test('the figures move as requests happen: requests, credits, rate-limit refusals', async () => {
  const key = await metered.newKey('free'); // 5 per minute
  meteredClock.toNextMinute(); // all six requests in one window
  const before = await scrape(metered.base);
  assert.equal((await call(metered.base, 'GET', `${API}/me`, key)).status, 200);
  assert.equal((await call(metered.base, 'GET', `${API}/me`, key)).status, 200);
  assert.equal((await call(metered.base, 'POST', `${API}/_test/paid`, key, {})).status, 200);
  assert.equal((await call(metered.base, 'POST', `${API}/_test/paid`, key, { fail: true })).status, 503);
  assert.equal((await call(metered.base, 'GET', `${API}/me`, key)).status, 200);
  assert.equal((await call(metered.base, 'GET', `${API}/me`, key)).status, 429);
  const after = await scrape(metered.base);
  const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
  assert.equal(delta('mla_http_request_duration_seconds_count', { route: '/me', status: '200' }), 3);
  assert.equal(delta('mla_http_request_duration_seconds_count', { route: '/me', status: '429' }), 1);
  assert.equal(delta('mla_http_request_duration_seconds_count', { route: '/_test/paid', status: '503' }), 1);
  assert.equal(delta('mla_credits_charged_total', { route: '/_test/paid' }), 1); // the failed one cost nothing
  assert.equal(delta('mla_credits_charged_total', { route: '/me' }), 0);
  assert.equal(delta('mla_rate_limit_refusals_total', { route: '/me' }), 1);
  // The latency buckets hold every request: the +Inf bucket equals the count.
  assert.equal(sample(after, 'mla_http_request_duration_seconds_bucket', { route: '/me', status: '200', le: '+Inf' }), sample(after, 'mla_http_request_duration_seconds_count', { route: '/me', status: '200' }));
  // Scrapes are requests too, and the database pools are open.
  assert.ok(sample(after, 'mla_http_request_duration_seconds_count', { route: '/metrics', status: '200' }) >= 1);
  assert.ok(sample(after, 'mla_db_connections', { pool: 'main' }) >= 1);
  assert.ok(sample(after, 'mla_db_connections_max', { pool: 'main' }) >= sample(after, 'mla_db_connections', { pool: 'main' }));
});

test('clip cache, engine and search index figures follow downloads and the catalog', async () => {
  const { sql } = metered.service.database;
  await ingestSignals({ sql, pool: metered.service.engine, storage: metered.service.storage, tracks: [{ file: 'drums.mp3', signal: drumPattern(100, 30), metadata: { title: 'Drums', artist: 'Test' } }] });
  const [{ id }] = await sql`SELECT id FROM tracks`;
  const key = await metered.newKey('pro');
  const before = await scrape(metered.base);
  assert.equal(sample(before, 'mla_engine_task_duration_seconds_count', { task: 'analyse', outcome: 'ok' }), 1); // the ingestion's
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${metered.base}${API}/download-track`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ track_id: id, duration_seconds: 10 }),
    });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
  }
  assert.equal((await call(metered.base, 'POST', `${API}/search`, key, { query: 'drums' })).status, 200);
  const after = await scrape(metered.base);
  const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
  assert.equal(delta('mla_clip_cache_lookups_total', { outcome: 'miss' }), 1);
  assert.equal(delta('mla_clip_cache_lookups_total', { outcome: 'hit' }), 1);
  assert.equal(sample(after, 'mla_clip_cache_hit_ratio'), 0.5);
  assert.ok(sample(after, 'mla_clip_cache_bytes') > 0);
  assert.equal(delta('mla_engine_task_duration_seconds_count', { task: 'clip', outcome: 'ok' }), 1);
  assert.equal(delta('mla_credits_charged_total', { route: '/download-track' }), 2);
  assert.equal(sample(after, 'mla_engine_queue_depth'), 0);
  assert.ok(sample(after, 'mla_engine_threads') >= 1);
  assert.equal(sample(after, 'mla_search_index_tracks'), 1);
});
