// Admission batches (admit_keys) and charge batches (charge_requests) lock the api_keys rows of
// their keys. They run at once on many connections, with keys in any order: they must lock in one
// order, or two of them can deadlock and fail every request of both batches.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { connectSql, type Sql } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import { admitBatch, chargeBatch, createBatchKeys } from './support/batch-statements.ts';

let db: TestDatabase;
let sql: Sql;
before(async () => {
  db = await createTestDatabase();
  sql = connectSql(db.url, 12);
  await migrate(sql);
});
after(async () => {
  await sql.end();
  await db.drop();
});

function shuffled<T>(items: T[], seed: number): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

test('concurrent admission and charge batches over the same keys, in any order, never deadlock', async () => {
  const keys = await createBatchKeys(sql, 6, 'lock');
  const statements = [];
  let charges = 0;
  for (let n = 0; n < 240; n++) {
    const batch = shuffled(keys, n + 1).slice(0, 2 + (n % 5));
    if (n % 2 === 1) charges += batch.length;
    statements.push(n % 2 === 0 ? admitBatch(sql, batch) : chargeBatch(sql, batch, `lock-${n}`));
  }
  const outcomes = await Promise.allSettled(statements);
  const failures = outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason));
  assert.deepEqual(failures, []);
  const [{ spent }] = await sql`SELECT sum(50000 - credits)::int AS spent FROM api_keys WHERE id IN ${sql(keys.map((k) => k.id))}`;
  assert.equal(spent, charges);
});
