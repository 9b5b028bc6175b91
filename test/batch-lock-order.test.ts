// Admission batches (admit_keys) and charge batches (charge_requests) lock the api_keys rows of
// their keys. They run at once on many connections, with keys in any order: they must lock in one
// order, or two of them can deadlock and fail every request of both batches.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { connectSql, type Sql } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import { createApiKey, hashApiKey } from '../billing/api-keys.ts';

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
  const keys: { id: number; hash: Buffer }[] = [];
  for (let i = 0; i < 6; i++) {
    const { key, id } = await createApiKey(sql, { name: `lock-${i}`, tier: 'pro' });
    keys.push({ id, hash: hashApiKey(key) });
  }
  const admit = (batch: typeof keys) => sql`
    SELECT * FROM admit_keys(${sql.array(batch.map((k) => k.hash) as any, 1001)}, ${sql.array(batch.map(() => 1), 1007)},
      ${sql.array(batch.map(() => 0), 1007)}, ${sql.array(batch.map(() => 0), 1007)},
      ${sql.array(batch.map(() => new Date().toISOString()) as any, 1185)})`;
  const charge = (batch: typeof keys, n: number) => sql`
    SELECT * FROM charge_requests(${sql.array(batch.map((k) => k.id), 1016)}, ${sql.array(batch.map(() => 1), 1007)},
      ${sql.array(batch.map(() => null) as any, 1009)}, ${sql.array(batch.map(() => null) as any, 1022)},
      ${sql.array(batch.map(() => null) as any, 1022)}, ${sql.array(batch.map(() => null) as any, 1022)},
      ${sql.array(batch.map((_, i) => `lock-${n}-${i}`), 1009)}, ${sql.array(batch.map(() => '/lock'), 1009)},
      ${sql.array(batch.map(() => new Date().toISOString()) as any, 1185)}, ${sql.array(batch.map(() => 1), 1021)},
      ${sql.array(batch.map(() => null) as any, 1009)})`;
  const statements = [];
  let charges = 0;
  for (let n = 0; n < 240; n++) {
    const batch = shuffled(keys, n + 1).slice(0, 2 + (n % 5));
    if (n % 2 === 1) charges += batch.length;
    statements.push(n % 2 === 0 ? admit(batch) : charge(batch, n));
  }
  const outcomes = await Promise.allSettled(statements);
  const failures = outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason));
  assert.deepEqual(failures, []);
  const [{ spent }] = await sql`SELECT sum(50000 - credits)::int AS spent FROM api_keys WHERE id IN ${sql(keys.map((k) => k.id))}`;
  assert.equal(spent, charges);
});
