// The two batched billing statements called directly, as billing/admission-batcher.ts and
// billing/ledger.ts call them: one admission (or charge of one credit) per key of the batch.
import type postgres from 'postgres';
import { createApiKey, hashApiKey } from '../../billing/api-keys.ts';
import { BYTEA_ARRAY, FLOAT4_ARRAY, FLOAT8_ARRAY, INT4_ARRAY, INT8_ARRAY, TEXT_ARRAY, TIMESTAMPTZ_ARRAY } from '../../db/array-types.ts';

/** A pool or a transaction: both run the statements. */
type Sql = postgres.Sql | postgres.TransactionSql;

/** A key as the statements name it: admit_keys by its hash, charge_requests by its id. */
export interface BatchKey {
  id: number;
  hash: Buffer;
}


/** Keys made at once in groups of this many. */
const KEYS_AT_ONCE = 50;

/** `count` new pro keys named `${prefix}-${i}`, as the statements name them. */
export async function createBatchKeys(sql: postgres.Sql, count: number, prefix: string): Promise<BatchKey[]> {
  const keys: BatchKey[] = [];
  for (let i = 0; i < count; i += KEYS_AT_ONCE) {
    const made = await Promise.all(Array.from({ length: Math.min(KEYS_AT_ONCE, count - i) }, (_, j) => createApiKey(sql, { name: `${prefix}-${i + j}`, tier: 'pro' })));
    keys.push(...made.map(({ key, id }) => ({ id, hash: hashApiKey(key) })));
  }
  return keys;
}

/** admit_keys: one request waiting on each key, no lease asked, nothing handed back. */
export function admitBatch(sql: Sql, batch: BatchKey[]) {
  return sql`
    SELECT * FROM admit_keys(${sql.array(batch.map((k) => k.hash) as any, BYTEA_ARRAY)}, ${sql.array(batch.map(() => 1), INT4_ARRAY)},
      ${sql.array(batch.map(() => 0), INT4_ARRAY)}, ${sql.array(batch.map(() => 0), INT4_ARRAY)},
      ${sql.array(batch.map(() => new Date().toISOString()) as any, TIMESTAMPTZ_ARRAY)})`;
}

/** charge_requests: one credit from each key, no track; request ids `${prefix}-${i}`. */
export function chargeBatch(sql: Sql, batch: BatchKey[], prefix: string) {
  return sql`
    SELECT * FROM charge_requests(${sql.array(batch.map((k) => k.id), INT8_ARRAY)}, ${sql.array(batch.map(() => 1), INT4_ARRAY)},
      ${sql.array(batch.map(() => null) as any, TEXT_ARRAY)}, ${sql.array(batch.map(() => null) as any, FLOAT8_ARRAY)},
      ${sql.array(batch.map(() => null) as any, FLOAT8_ARRAY)}, ${sql.array(batch.map(() => null) as any, FLOAT8_ARRAY)},
      ${sql.array(batch.map((_, i) => `${prefix}-${i}`), TEXT_ARRAY)}, ${sql.array(batch.map(() => '/batch'), TEXT_ARRAY)},
      ${sql.array(batch.map(() => new Date().toISOString()) as any, TIMESTAMPTZ_ARRAY)}, ${sql.array(batch.map(() => 1), FLOAT4_ARRAY)},
      ${sql.array(batch.map(() => null) as any, TEXT_ARRAY)})`;
}
