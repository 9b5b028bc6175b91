// Migrations run once, even when several processes start against one fresh database at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from './support/database.ts';
import { connectSql } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';

test('concurrent migrate() calls apply each file exactly once', async () => {
  const db = await createTestDatabase();
  const connections = [0, 1, 2, 3].map(() => connectSql(db.url, 1));
  try {
    const results = await Promise.all(connections.map((sql) => migrate(sql)));
    const applied = results.flat();
    assert.ok(applied.length > 0);
    assert.equal(new Set(applied).size, applied.length, 'no file applied twice');
    assert.deepEqual(results.filter((r) => r.length > 0).length, 1, 'one process did all the work');
    const [tiers] = await connections[0]`SELECT count(*)::int AS n FROM tiers`;
    assert.equal(tiers.n, 3);
    assert.deepEqual(await migrate(connections[0]), []);
  } finally {
    await Promise.all(connections.map((sql) => sql.end()));
    await db.drop();
  }
});
