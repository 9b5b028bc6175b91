// kill -9 of a server process under concurrent paid load (the load test's defect 3): every credit
// charged has its usage record; the dead process's reservations and Idempotency-Keys are settled
// by the restarted process, without anything else happening; and a client that retries every request with its Idempotency-Key
// gets each reply once (a replay of what it may already have had), charged exactly once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from './support/database.ts';
import { spawnServer, stopLeftovers, type SpawnedServer } from './support/server.ts';
import { API } from './support/http.ts';
import { connectSql } from '../db/connect.ts';
import { createApiKey } from '../billing/api-keys.ts';
import { createEnginePool } from '../engine/pool.ts';
import { climaxPiece } from './support/synth.ts';
import { ingestSignals } from './support/ingest.ts';
import { fileStorage } from '../catalog/storage/file-storage.ts';

const REQUESTS = 295;
// The kill lands once this many replies are back: mid-burst, with many requests in flight.
const KILL_AFTER_REPLIES = 60;
// Only detects a hang: the live process's sweep (every 2 s) settles a process whose heartbeat is 5 s
// old (billing/processes.ts), which on a busy machine may take several sweeps.
const SETTLE_HANG_MS = 60_000;

interface Outcome { status: number; bytes: Buffer; replayed: boolean }

function requestOf(i: number, trackId: string): { path: string; body: object } {
  switch (i % 4) {
    case 0: return { path: '/_test/paid', body: { delay_ms: 100 + (i % 7) * 100 } }; // reserved while it works
    case 1: return { path: '/search', body: { query: 'night drive', limit: 1 + (i % 5) } };
    case 2: return { path: '/download-track', body: { track_id: trackId, duration_seconds: 10 + (i % 9) } }; // clips made by the engine
    default: return { path: '/_test/answer', body: { delay_ms: i % 300 } };
  }
}

async function send(base: string, key: string, i: number, trackId: string): Promise<Outcome | undefined> {
  const { path: route, body } = requestOf(i, trackId);
  try {
    const response = await fetch(`${base}${API}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `crash-test-${i}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), replayed: response.headers.get('idempotent-replayed') === 'true' };
  } catch {
    return undefined; // the connection died with the process
  }
}

test(`kill -9 under ${REQUESTS} concurrent paid requests, restart, retry with Idempotency-Keys: each reply once, each charged once`, async () => {
  const db = await createTestDatabase();
  const sql = connectSql(db.url, 4);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-crash-'));
  const env = { DATABASE_URL: db.url, DATA_DIR: dataDir, ENABLE_TEST_ROUTES: '1', DEMO_TRACKS: '0' };
  const servers: SpawnedServer[] = [];
  try {
    servers.push(await spawnServer(env));
    const pool = createEnginePool({ threads: 1 });
    const report = await ingestSignals({
      sql, pool, storage: fileStorage(path.join(dataDir, 'catalog')),
      tracks: [{ file: 'drive.mp3', signal: climaxPiece(120, 40, 20), metadata: { title: 'Night Drive', artist: 'Test' } }],
    }).finally(() => pool.close());
    const trackId = report.ingested[0].id;
    // A tier whose rate limit leaves room for the burst and all its retries within one minute.
    await sql`INSERT INTO tiers VALUES ('load', 100000, 0, 100000, NULL, true)`;
    const { key, id } = await createApiKey(sql, { name: 'crash', tier: 'load' });
    const [dead] = await sql`SELECT id FROM server_processes`;

    let replies = 0;
    let kill!: () => void;
    const killed = new Promise<void>((resolve) => (kill = resolve));
    const first = Array.from({ length: REQUESTS }, (_, i) => send(servers[0].base, key, i, trackId).then((o) => {
      if (o && ++replies === KILL_AFTER_REPLIES) kill();
      return o;
    }));
    await killed;
    servers[0].child.kill('SIGKILL');
    const killedAt = Date.now();
    const before = await Promise.all(first);
    const answered = before.filter((o) => o?.status === 200).length;
    assert.ok(answered > 0 && answered < REQUESTS, `${answered} replies before the kill: the kill must land mid-burst`);
    assert.deepEqual(before.filter((o) => o !== undefined && o.status !== 200).map((o) => o!.bytes.toString()), [], 'before the kill');

    // Every credit charged so far has its usage record (the charge writes it).
    const charged = async () => (await sql`SELECT 100000 - credits AS n FROM api_keys WHERE id = ${id}`)[0].n;
    const recorded = async () => (await sql`SELECT coalesce(sum(credits_consumed), 0)::int AS n FROM usage_records WHERE key_id = ${id}`)[0].n;
    const reservations = async () => (await sql`SELECT count(*)::int AS n FROM credit_reservations WHERE process_id = ${dead.id}`)[0].n;
    servers.push(await spawnServer(env));
    while ((await reservations()) > 0 && Date.now() - killedAt < SETTLE_HANG_MS) await new Promise((r) => setTimeout(r, 200));
    assert.equal(await reservations(), 0, 'reservations of the dead process still open');
    const [inFlight] = await sql`SELECT count(*)::int AS n FROM idempotency_keys WHERE key_id = ${id} AND status IS NULL`;
    assert.equal(inFlight.n, 0, 'Idempotency-Keys of the dead process released');
    assert.equal(await charged(), await recorded(), 'credits charged = credits in usage records');
    const chargedBeforeRetry = await charged();
    assert.ok(chargedBeforeRetry >= answered, `${chargedBeforeRetry} charged, ${answered} answered`);

    // The client retries everything with the same keys.
    const retried = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => send(servers[1].base, key, i, trackId)));
    assert.deepEqual(retried.filter((o) => o?.status !== 200).map((o) => o?.status), []);
    for (let i = 0; i < REQUESTS; i++) {
      const had = before[i];
      if (had?.status === 200) {
        assert.ok(retried[i]!.replayed, `request ${i}: answered before the kill, so replayed`);
        assert.ok(retried[i]!.bytes.equals(had.bytes), `request ${i}: the same reply`);
      }
    }
    // Charged once each: the ones charged before the kill were replayed, the rest charged now.
    assert.equal(await charged(), REQUESTS);
    assert.equal(await recorded(), REQUESTS);
    const replays = retried.filter((o) => o!.replayed).length;
    assert.equal(replays, chargedBeforeRetry, 'every request charged before the kill is replayed, no other');
    const [licenses] = await sql`SELECT count(*)::int AS n, count(DISTINCT request_id)::int AS distinct_requests FROM licenses WHERE key_id = ${id}`;
    const downloads = Array.from({ length: REQUESTS }, (_, i) => i).filter((i) => i % 4 === 2).length;
    assert.deepEqual(licenses, { n: downloads, distinct_requests: downloads });

    servers[1].child.kill('SIGTERM');
    assert.equal(await servers[1].exited, 0);
  } finally {
    await stopLeftovers(servers);
    await sql.end();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
