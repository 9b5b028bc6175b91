// Coalesces the admissions of concurrent requests into one admit_requests() call per batch.
// Requests arriving while batches are in flight wait for the next one; a few batches may be in
// flight at once so a slow batch does not stall everyone.
import type { Sql } from '../db/connect.ts';

export type AdmissionRow = Record<string, any>;

export interface AdmissionBatcher {
  /** Resolves with the row of admit_requests for this key hash, or undefined for an inactive key. */
  admit(hash: Buffer): Promise<AdmissionRow | undefined>;
}

interface Waiting {
  hash: Buffer;
  resolve(row: AdmissionRow | undefined): void;
  reject(err: unknown): void;
}

const BYTEA_ARRAY = 1001; // PostgreSQL type oid of bytea[]

export function createAdmissionBatcher(sql: Sql, options: { maxBatch?: number; maxInFlight?: number } = {}): AdmissionBatcher {
  const maxBatch = options.maxBatch ?? 256;
  const maxInFlight = options.maxInFlight ?? 2;
  let queue: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  function schedule() {
    if (scheduled || inFlight >= maxInFlight || queue.length === 0) return;
    scheduled = true;
    setImmediate(send); // lets every request of this event-loop turn join the batch
  }

  function send() {
    scheduled = false;
    if (inFlight >= maxInFlight || queue.length === 0) return;
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    inFlight += 1;
    const hashes = batch.map((w) => w.hash);
    sql`SELECT * FROM admit_requests(${sql.array(hashes as any, BYTEA_ARRAY)})`
      .then((rows) => {
        const byOrdinal = new Map<number, AdmissionRow>();
        for (const row of rows) byOrdinal.set(row.ord, row);
        batch.forEach((w, i) => w.resolve(byOrdinal.get(i + 1)));
      })
      .catch((err) => batch.forEach((w) => w.reject(err)))
      .finally(() => {
        inFlight -= 1;
        schedule();
      });
    schedule();
  }

  return {
    admit(hash) {
      return new Promise((resolve, reject) => {
        queue.push({ hash, resolve, reject });
        schedule();
      });
    },
  };
}
