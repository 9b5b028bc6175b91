// The batched billing statements find each key of a batch by its index, whatever the statistics
// of api_keys say: keys made moments ago (a new deployment's, a load test's) have none until
// autovacuum analyses the table, and the planner then read all of api_keys for every admission
// (1.5 ms per call at 1,000 keys; migration 016).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { connectSql, type Sql } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import { admitBatch, chargeBatch, createBatchKeys } from './support/batch-statements.ts';

/** Enough keys that a sequential scan is not the cheapest way to find a few of them. */
const KEYS = 1000;
/** Calls of each statement: past the five a plan cache plans for the call's own parameters. */
const CALLS = 8;

let db: TestDatabase;
let sql: Sql;
before(async () => {
  db = await createTestDatabase();
  sql = connectSql(db.url, 4);
  await migrate(sql);
});
after(async () => {
  await sql.end();
  await db.drop();
});

test('admission and charge batches never scan api_keys, before the table has statistics', async () => {
  // As a fresh deployment's keys are for up to a minute; kept so here, whenever autovacuum comes by.
  await sql`ALTER TABLE api_keys SET (autovacuum_enabled = false)`;
  const keys = await createBatchKeys(sql, KEYS, 'lookup');
  const [{ analysed }] = await sql`SELECT last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL AS analysed FROM pg_stat_user_tables WHERE relname = 'api_keys'`;
  assert.equal(analysed, false, 'the table has no statistics yet');
  // The scans of api_keys itself (index scans count against the index) the calls made. The
  // counter also holds scans of this connection's earlier transactions whose statistics are not
  // yet reported (the migrations' scans, within a second), so the calls' own are the difference.
  const scans = await sql.begin(async (tx) => {
    const scansSoFar = async () => (await tx`SELECT pg_stat_get_xact_numscans('api_keys'::regclass)::int AS scans`)[0].scans as number;
    const before = await scansSoFar();
    for (let n = 0; n < CALLS; n++) {
      const batch = keys.slice(n * 3, n * 3 + 1 + (n % 3));
      assert.equal((await admitBatch(tx, batch)).length, batch.length);
      assert.equal((await chargeBatch(tx, batch, `lookup-${n}`)).length, batch.length);
    }
    return (await scansSoFar()) - before;
  });
  assert.equal(scans, 0);
});
