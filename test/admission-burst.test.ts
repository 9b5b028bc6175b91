// Defect: concurrent admission batches of one key each took a lease, and each grant replaced the
// one before with its unused admissions still in it; those were counted in PostgreSQL, never
// spent and never handed back, so a burst well under the limit got 429s, and the key's counter
// stayed above what it had admitted. A server process of its own, as the load test had.
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
import { offsetToNextMinute } from './support/window-clock.ts';

const BURST = 295; // a pro key allows 300 a minute
const PATHS = ['/search', '/_test/answer', '/_test/paid'];

test(`${BURST} concurrent paid requests of a new pro key on a fresh server: none refused; the counter equals what was admitted`, async () => {
  const db = await createTestDatabase();
  const sql = connectSql(db.url, 2);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-burst-'));
  let server: SpawnedServer | undefined;
  try {
    for (let round = 0; round < 3; round++) {
      // The server's rate-limit clock reads the start of a minute as it starts, so the burst, a few
      // seconds later, falls in one window: the counter after it is the burst's alone.
      const offsetMs = offsetToNextMinute();
      server = await spawnServer({ DATABASE_URL: db.url, DATA_DIR: dataDir, ENABLE_TEST_ROUTES: '1', DEMO_TRACKS: '0', RATE_LIMIT_CLOCK_OFFSET_MS: String(offsetMs) });
      const { key, id } = await createApiKey(sql, { name: `burst ${round}`, tier: 'pro' });
      const minute = Math.floor((Date.now() + offsetMs) / 60_000);
      const statuses = await Promise.all(Array.from({ length: BURST }, (_, i) =>
        fetch(`${server!.base}${API}${PATHS[i % PATHS.length]}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(PATHS[i % PATHS.length] === '/search' ? { query: 'calm piano' } : { delay_ms: 2 }),
        }).then(async (r) => ({ status: r.status, body: await r.text() }))));
      const refused = statuses.filter((s) => s.status !== 200);
      assert.deepEqual(refused, [], `round ${round}: ${refused.length} of ${BURST} not 200`);
      // A graceful stop hands unused leased admissions back.
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
      const [row] = await sql`SELECT minute_count, extract(epoch FROM minute_window)::bigint / 60 AS minute FROM api_keys WHERE id = ${id}`;
      assert.equal(Number(row.minute), minute, `round ${round}: the burst's window`);
      assert.equal(row.minute_count, BURST, `round ${round}: minute_count`);
    }
  } finally {
    await stopLeftovers([server]);
    await sql.end();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
