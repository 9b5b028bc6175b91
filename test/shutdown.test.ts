// Graceful shutdown: in-flight requests finish, new ones are refused, usage is flushed, exit 0.
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

test('SIGTERM finishes in-flight requests and flushes every usage record', async () => {
  const db = await createTestDatabase();
  const sql = connectSql(db.url, 2);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-shutdown-'));
  const spawned: SpawnedServer[] = [];
  try {
    // A long flush interval: without the flush at shutdown these records would be lost.
    const server = await spawnServer({ DATABASE_URL: db.url, DATA_DIR: dataDir, ENABLE_TEST_ROUTES: '1', DEMO_TRACKS: '0', USAGE_FLUSH_MS: '600000' });
    spawned.push(server);
    const { key, id } = await createApiKey(sql, { name: 'shutdown', tier: 'pro' });
    const send = (body: object) =>
      fetch(`${server.base}${API}/_test/paid`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.status);
    for (let i = 0; i < 20; i++) assert.equal(await send({}), 200);
    const slow = Array.from({ length: 5 }, () => send({ delay_ms: 800 }));
    await new Promise((r) => setTimeout(r, 200));
    server.child.kill('SIGTERM');
    assert.deepEqual(await Promise.all(slow), [200, 200, 200, 200, 200]);
    assert.equal(await server.exited, 0);
    const [row] = await sql`SELECT count(*)::int AS n, sum(credits_consumed)::int AS charged FROM usage_records WHERE key_id = ${id}`;
    assert.deepEqual(row, { n: 25, charged: 25 });
    const [balance] = await sql`SELECT credits FROM api_keys WHERE id = ${id}`;
    assert.equal(balance.credits, 50000 - 25);
  } finally {
    await stopLeftovers(spawned);
    await sql.end();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
