// Two server processes on one database: credits and limits hold across them, and a graceful
// shutdown of each flushes every usage record.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from './support/database.ts';
import { spawnServer, stopLeftovers, type SpawnedServer } from './support/server.ts';
import { API } from './support/http.ts';
import { connectSql } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import { createApiKey } from '../billing/api-keys.ts';
import { createEnginePool } from '../engine/pool.ts';
import { climaxPiece } from './support/synth.ts';
import { ingestSignals } from './support/ingest.ts';
import { fileStorage } from '../catalog/storage/file-storage.ts';

// The paid routes, each with the body of one request. The real ones need a track: it is ingested
// into one catalog store that both processes read.
interface PaidRoute {
  name: string;
  path: string | ((trackId: string) => string);
  body?: (trackId: string) => object;
  /** Each request carries its own Idempotency-Key (claimed, then charged through a reservation). */
  keyed?: boolean;
}

const ROUTES: PaidRoute[] = [
  // /_test/paid reserves, works, then commits; /_test/answer is charged while it is answered, as
  // search is, and for a key the process admitted moments ago before its admission is counted.
  { name: '/_test/paid', path: '/_test/paid', body: () => ({ delay_ms: 5 }) },
  { name: '/_test/answer', path: '/_test/answer', body: () => ({ delay_ms: 5 }) },
  { name: '/search', path: '/search', body: () => ({ query: 'race track' }) },
  { name: '/download-track (full track)', path: '/download-track', body: (id) => ({ track_id: id }) },
  // Identical clips: each process runs one engine job, then serves its cache (the batched charge).
  { name: '/download-track (10 s clip)', path: '/download-track', body: (id) => ({ track_id: id, duration_seconds: 10 }) },
  { name: '/search with an Idempotency-Key each', path: '/search', body: () => ({ query: 'race track' }), keyed: true },
  { name: '/tracks/{id}/similar', path: (id) => `/tracks/${id}/similar` },
];

async function ingestOneTrack(sql: ReturnType<typeof connectSql>, storeDir: string): Promise<string> {
  const pool = createEnginePool({ threads: 1 });
  try {
    const report = await ingestSignals({ sql, pool, storage: fileStorage(storeDir), tracks: [{ file: 'race.mp3', signal: climaxPiece(120, 40, 20), metadata: { title: 'Race Track', artist: 'Test' } }] });
    return report.ingested[0].id;
  } finally {
    await pool.close();
  }
}

for (const route of ROUTES) {
test(`200 simultaneous ${route.name} requests over two processes against 50 credits: exactly 50 succeed`, async () => {
  const db = await createTestDatabase();
  const sql = connectSql(db.url, 4);
  const dataDirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'mla-proc-')));
  // One catalog store for both processes.
  const storeDir = path.join(dataDirs[0], 'catalog');
  fs.mkdirSync(storeDir);
  fs.symlinkSync(storeDir, path.join(dataDirs[1], 'catalog'));
  const servers: SpawnedServer[] = [];
  try {
    // Both processes migrate the same fresh database at once (advisory lock).
    await Promise.all(dataDirs.map(async (dir) => servers.push(await spawnServer({ DATABASE_URL: db.url, DATA_DIR: dir, ENABLE_TEST_ROUTES: '1', DEMO_TRACKS: '0' }))));
    const trackId = route.name.startsWith('/_test') ? '' : await ingestOneTrack(sql, storeDir);
    const routePath = typeof route.path === 'string' ? route.path : route.path(trackId);
    const { key, id } = await createApiKey(sql, { name: 'race', tier: 'pro' });
    // Each process has admitted the key before (a free request), as a busy client's would have.
    for (const server of servers) assert.equal((await fetch(`${server.base}${API}/me`, { headers: { authorization: `Bearer ${key}` } })).status, 200);
    await sql`UPDATE api_keys SET credits = 50 WHERE id = ${id}`;

    let lowest = 50;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const [row] = await sql`SELECT credits FROM api_keys WHERE id = ${id}`;
        lowest = Math.min(lowest, row.credits);
      }
    })();

    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${servers[i % 2].base}${API}${routePath}`, {
          method: route.body ? 'POST' : 'GET',
          headers: {
            authorization: `Bearer ${key}`,
            ...(route.body ? { 'content-type': 'application/json' } : {}),
            ...(route.keyed ? { 'idempotency-key': `race-${i}` } : {}),
          },
          body: route.body ? JSON.stringify(route.body(trackId)) : undefined,
        }).then(async (r) => ({ status: r.status, credits: Number(r.headers.get('x-credits-remaining')), body: Buffer.from(await r.arrayBuffer()) })),
      ),
    );
    watching = false;
    await watcher;

    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 402);
    const others = responses.filter((r) => r.status !== 200 && r.status !== 402).map((r) => `${r.status} ${r.body.toString().slice(0, 200)}`);
    if (others.length > 0) others.push(...servers.flatMap((s) => s.output().split('\n').filter((line) => line.includes('unavailable')).slice(0, 3)));
    assert.equal(ok.length, 50, `statuses: ${JSON.stringify(responses.map((r) => r.status))}; neither 200 nor 402: ${JSON.stringify(others)}`);
    assert.equal(refused.length, 150, `neither 200 nor 402: ${JSON.stringify(others)}`);
    // Each success saw a distinct balance: 49, 48, ..., 0.
    assert.deepEqual(ok.map((r) => r.credits).sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
    const [row] = await sql`SELECT credits FROM api_keys WHERE id = ${id}`;
    assert.equal(row.credits, 0);
    assert.ok(lowest >= 0);
    if (route.path === '/search') {
      for (const r of ok) assert.deepEqual(JSON.parse(r.body.toString()).tracks.map((t: { id: string }) => t.id), [trackId]);
    }
    if (route.path === '/download-track') {
      // Every success is a whole MP3 of one size, and has its license.
      assert.equal(new Set(ok.map((r) => r.body.length)).size, 1);
      assert.ok(ok[0].body.length > 10_000);
      const [licenses] = await sql`SELECT count(*)::int AS n FROM licenses WHERE key_id = ${id}`;
      assert.equal(licenses.n, 50);
    }

    // Graceful shutdown flushes usage: one record per request, 50 of them charged.
    for (const server of servers) server.child.kill('SIGTERM');
    const codes = await Promise.all(servers.map((s) => s.exited));
    assert.deepEqual(codes, [0, 0]);
    const [usage] = await sql`
      SELECT count(*)::int AS total, count(*) FILTER (WHERE credits_consumed = 1)::int AS charged,
             count(*) FILTER (WHERE status_code = 200)::int AS ok
        FROM usage_records WHERE key_id = ${id} AND endpoint = ${typeof route.path === 'string' ? route.path : route.name}`;
    assert.deepEqual(usage, { total: 200, charged: 50, ok: 50 });
  } finally {
    await stopLeftovers(servers);
    await sql.end();
    await db.drop();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  }
});
}
