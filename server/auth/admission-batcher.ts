// Coalesces the admissions of concurrent requests into one admit_keys() call per batch: one entry
// per key, with the number of requests waiting on it, the lease to take ahead (admission-leases.ts)
// and unused leased admissions to hand back. Requests arriving while batches are in flight wait
// for the next one; a few batches may be in flight at once so a slow batch does not stall everyone.
import type { Sql } from '../db/connect.ts';
import type { Counted, KeyInfo, LeaseAsk, LeaseTable } from './admission-leases.ts';

export interface AdmitOutcome {
  counted: Counted;
  admitted: boolean;
  retryAfterSeconds: number;
}

export interface AdmissionBatcher {
  /** Resolves with the outcome for this key, or undefined for an unknown, revoked or expired key. */
  admit(key: string, hash: Buffer): Promise<AdmitOutcome | undefined>;
  /** Hands back unused leased admissions with the next batch. */
  handBack(key: string, hash: Buffer, ask: LeaseAsk): void;
}

interface Waiting {
  resolve(outcome: AdmitOutcome | undefined): void;
  reject(err: unknown): void;
}

interface KeyEntry {
  hash: Buffer;
  waiting: Waiting[];
  handBack?: LeaseAsk;
}

// PostgreSQL type oids of the array parameters (explicit: inferring them from the values fails
// for some first calls).
const BYTEA_ARRAY = 1001;
const INT4_ARRAY = 1007;
const TIMESTAMPTZ_ARRAY = 1185;

export function createAdmissionBatcher(sql: Sql, leases: LeaseTable, options: { maxKeys?: number; maxInFlight?: number } = {}): AdmissionBatcher {
  const maxKeys = options.maxKeys ?? 256;
  const maxInFlight = options.maxInFlight ?? 2;
  let queue = new Map<string, KeyEntry>();
  let inFlight = 0;
  let scheduled = false;

  function schedule() {
    if (scheduled || inFlight >= maxInFlight || queue.size === 0) return;
    scheduled = true;
    setImmediate(send); // lets every request of this event-loop turn join the batch
  }

  function entry(key: string, hash: Buffer): KeyEntry {
    let e = queue.get(key);
    if (!e) queue.set(key, (e = { hash, waiting: [] }));
    return e;
  }

  function takeBatch(now: number): [string, KeyEntry][] {
    const batch: [string, KeyEntry][] = [];
    for (const [key, e] of queue) {
      if (batch.length === maxKeys) break;
      queue.delete(key);
      // A lease granted while these requests waited serves them without a round trip.
      while (e.waiting.length > 0) {
        const counted = leases.take(key, now);
        if (!counted) break;
        e.waiting.shift()!.resolve({ counted, admitted: true, retryAfterSeconds: 0 });
      }
      if (e.waiting.length > 0 || e.handBack) batch.push([key, e]);
    }
    return batch;
  }

  function send() {
    scheduled = false;
    if (inFlight >= maxInFlight || queue.size === 0) return;
    const now = Date.now();
    const batch = takeBatch(now);
    if (batch.length === 0) return schedule();
    const asks = batch.map(([key, e]) => {
      const ask = leases.ask(key, e.waiting.length, now);
      const back = e.handBack;
      if (!back) return ask;
      return { extra: ask.extra, returned: ask.returned + back.returned, returnedMinute: back.returned > 0 ? back.returnedMinute : ask.returnedMinute };
    });
    inFlight += 1;
    sql`SELECT * FROM admit_keys(
          ${sql.array(batch.map(([, e]) => e.hash) as any, BYTEA_ARRAY)},
          ${sql.array(batch.map(([, e]) => e.waiting.length), INT4_ARRAY)},
          ${sql.array(asks.map((a) => a.extra), INT4_ARRAY)},
          ${sql.array(asks.map((a) => a.returned), INT4_ARRAY)},
          ${sql.array(asks.map((a) => a.returnedMinute.toISOString()) as any, TIMESTAMPTZ_ARRAY)})`
      .then((rows) => {
        const byOrdinal = new Map<number, Record<string, any>>();
        for (const row of rows) byOrdinal.set(row.ord, row);
        const settledAt = Date.now();
        batch.forEach(([key, e], i) => {
          const row = byOrdinal.get(i + 1);
          if (!row) {
            leases.drop(key);
            for (const w of e.waiting) w.resolve(undefined);
            return;
          }
          const grant = grantOf(row);
          const counted = leases.settle(key, e.hash, grant, settledAt);
          const refused = { info: grant.info, minuteCount: grant.minuteCount - grant.leased, dayCount: grant.dayCount - grant.leased };
          e.waiting.forEach((w, j) => {
            const admitted = j < counted.length;
            const seen = admitted ? counted[j] : refused;
            w.resolve({ counted: seen, admitted, retryAfterSeconds: admitted ? 0 : row.retry_after_seconds });
          });
        });
      })
      .catch((err) => batch.forEach(([, e]) => e.waiting.forEach((w) => w.reject(err))))
      .finally(() => {
        inFlight -= 1;
        schedule();
      });
    schedule();
  }

  return {
    admit(key, hash) {
      return new Promise((resolve, reject) => {
        entry(key, hash).waiting.push({ resolve, reject });
        schedule();
      });
    },
    handBack(key, hash, ask) {
      const e = entry(key, hash);
      e.handBack = e.handBack ? { ...ask, returned: e.handBack.returned + ask.returned } : ask;
      schedule();
    },
  };
}

function keyInfo(row: Record<string, any>): KeyInfo {
  return {
    keyId: row.key_id,
    tier: row.tier,
    credits: row.credits,
    monthlyCredits: row.monthly_credits,
    intentExtraction: row.intent_extraction,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    requestsPerMinute: row.requests_per_minute,
    requestsPerDay: row.requests_per_day,
  };
}

function grantOf(row: Record<string, any>) {
  return {
    info: keyInfo(row),
    minuteWindow: row.minute_window,
    minuteCount: row.minute_count,
    dayCount: row.day_count,
    granted: row.granted,
    leased: row.leased,
  };
}
