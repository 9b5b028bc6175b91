// Usage records: buffered in memory and written in batches (one multi-row INSERT), so recording a
// request costs no round trip on its path. flush() is awaited by readers of /usage and by shutdown.
import type { Sql } from '../db/connect.ts';

export interface UsageRecord {
  keyId: number;
  requestedAt: Date;
  endpoint: string;
  statusCode: number;
  creditsConsumed: number;
  responseTimeMs: number;
  requestId: string;
}

export interface UsageLog {
  record(entry: UsageRecord): void;
  /** Writes everything recorded so far. */
  flush(): Promise<void>;
  /** Flushes and stops the timer. */
  close(): Promise<void>;
}

const MAX_BATCH = 1000;

export function createUsageLog(sql: Sql, options: { flushMs: number; onError?: (err: unknown) => void }): UsageLog {
  let buffer: UsageRecord[] = [];
  let writing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const onError = options.onError ?? ((err) => console.error('usage flush failed; will retry:', err));

  // One fixed statement whatever the batch size (arrays, not thousands of bind parameters): it is
  // prepared once and cheap for PostgreSQL to execute.
  async function writeBatch(batch: UsageRecord[]): Promise<void> {
    await sql`
      INSERT INTO usage_records (key_id, requested_at, endpoint, status_code, credits_consumed, response_time_ms, request_id)
      SELECT * FROM unnest(
        ${sql.array(batch.map((r) => r.keyId))}::bigint[],
        ${sql.array(batch.map((r) => r.requestedAt.toISOString()))}::timestamptz[],
        ${sql.array(batch.map((r) => r.endpoint))}::text[],
        ${sql.array(batch.map((r) => r.statusCode))}::smallint[],
        ${sql.array(batch.map((r) => r.creditsConsumed))}::integer[],
        ${sql.array(batch.map((r) => r.responseTimeMs))}::real[],
        ${sql.array(batch.map((r) => r.requestId))}::text[])`;
  }

  // Batches are written one after another; a failed batch goes back to the front of the buffer.
  function flush(): Promise<void> {
    writing = writing.catch(() => {}).then(async () => {
      while (buffer.length > 0) {
        const batch = buffer.slice(0, MAX_BATCH);
        buffer = buffer.slice(batch.length);
        try {
          await writeBatch(batch);
        } catch (err) {
          buffer = batch.concat(buffer);
          throw err;
        }
      }
    });
    return writing;
  }

  function retryLater(err: unknown) {
    onError(err);
    schedule();
  }

  function schedule() {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      flush().catch(retryLater);
    }, options.flushMs);
  }

  return {
    record(entry) {
      buffer.push(entry);
      if (buffer.length >= MAX_BATCH) flush().catch(retryLater);
      else schedule();
    },
    flush,
    async close() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await flush();
    },
  };
}

export interface UsagePage {
  usage: { timestamp: string; endpoint: string; status_code: number; credits_consumed: number; response_time_ms: number }[];
  total_count: number;
}

export async function readUsagePage(sql: Sql, keyId: number, limit: number, offset: number): Promise<UsagePage> {
  const [rows, [count]] = await Promise.all([
    sql`SELECT requested_at, endpoint, status_code, credits_consumed, response_time_ms
          FROM usage_records WHERE key_id = ${keyId}
         ORDER BY requested_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
    sql`SELECT count(*)::integer AS n FROM usage_records WHERE key_id = ${keyId}`,
  ]);
  return {
    usage: rows.map((r) => ({
      timestamp: r.requested_at.toISOString(),
      endpoint: r.endpoint,
      status_code: r.status_code,
      credits_consumed: r.credits_consumed,
      response_time_ms: Math.round(r.response_time_ms * 100) / 100,
    })),
    total_count: count.n,
  };
}

/** Deletes records past the retention period (13 months, docs/decisions.md "Usage"). */
export async function pruneUsage(sql: Sql): Promise<number> {
  const rows = await sql`DELETE FROM usage_records WHERE requested_at < now() - interval '13 months' RETURNING 1`;
  return rows.length;
}
