// Coalesces the admissions of concurrent requests into one admit_keys() call per batch (through
// the statement batcher): one entry per key, with the number of requests waiting on it, the lease
// to take ahead (admission-leases.ts) and unused leased admissions to hand back.
import type { Sql } from '../db/connect.ts';
import type { Counted, Grant, KeyInfo, LeaseAsk, LeaseTable } from './admission-leases.ts';
import { createStatementBatcher } from '../db/statement-batcher.ts';
import { BYTEA_ARRAY, INT4_ARRAY, TIMESTAMPTZ_ARRAY } from '../db/array-types.ts';
import { REAL_TIME, timeOn, type WindowClock } from './window-clock.ts';

export interface AdmitOutcome {
  counted: Counted;
  admitted: boolean;
  retryAfterSeconds: number;
}

export interface AdmissionBatcher {
  /** Resolves with the outcome for this key, or undefined for an unknown, revoked or expired key. */
  admit(key: string, hash: Buffer): Promise<AdmitOutcome | undefined>;
  /** Hands back unused leased admissions with the next batch; resolves once they are back. */
  handBack(key: string, hash: Buffer, ask: LeaseAsk): Promise<void>;
}

/** A request waiting on its key, or unused leased admissions going back (no request). */
type Item = { key: string; hash: Buffer; handBack?: LeaseAsk };

interface KeyEntry {
  hash: Buffer;
  /** Positions in the batch of the requests waiting on this key, in arrival order. */
  waiting: number[];
  handBack?: LeaseAsk;
}

/** A request that admit_keys() turned away, until the key's other batches in flight have settled. */
interface Refusal {
  key: string;
  position: number;
  outcome: AdmitOutcome;
}

/** `clock`: the windows' clock (window-clock.ts); the real one unless a test moves it. */
export function createAdmissionBatcher(sql: Sql, leases: LeaseTable, options: { maxBatch?: number; maxInFlight?: number; clock?: WindowClock } = {}): AdmissionBatcher {
  const clock = options.clock ?? REAL_TIME;
  const unsettled = createUnsettledBatches();

  // One batch: requests that a lease granted while they waited are served from it; the others,
  // grouped by key, go to one admit_keys() call with each key's lease ask and hand-back.
  async function run(items: Item[]): Promise<(AdmitOutcome | undefined)[]> {
    const now = timeOn(clock);
    const results: (AdmitOutcome | undefined)[] = new Array(items.length);
    const keys = new Map<string, KeyEntry>();
    items.forEach((item, i) => {
      let e = keys.get(item.key);
      if (!e) keys.set(item.key, (e = { hash: item.hash, waiting: [] }));
      if (item.handBack) {
        e.handBack = e.handBack ? combineAsks(e.handBack, item.handBack) : item.handBack;
        return;
      }
      const counted = leases.take(item.key, now);
      if (counted) results[i] = { counted, admitted: true, retryAfterSeconds: 0 };
      else e.waiting.push(i);
    });
    const batch = [...keys].filter(([, e]) => e.waiting.length > 0 || e.handBack);
    if (batch.length === 0) return results;
    const asks = batch.map(([key, e]) => combineAsks(leases.ask(key, e.waiting.length, now), e.handBack));
    const settled = unsettled.open(batch.map(([key]) => key));
    const refusals: Refusal[] = [];
    try {
      const rows = await admitKeys(batch, asks);
      applyGrants(batch, rows, results, refusals, now);
    } finally {
      settled();
    }
    await refuseOrLease(refusals, results);
    return results;
  }

  function admitKeys(batch: [string, KeyEntry][], asks: LeaseAsk[]) {
    return sql`SELECT * FROM admit_keys(
          ${sql.array(batch.map(([, e]) => e.hash) as any, BYTEA_ARRAY)},
          ${sql.array(batch.map(([, e]) => e.waiting.length), INT4_ARRAY)},
          ${sql.array(asks.map((a) => a.extra), INT4_ARRAY)},
          ${sql.array(asks.map((a) => a.returned), INT4_ARRAY)},
          ${sql.array(asks.map((a) => a.returnedMinute.toISOString()) as any, TIMESTAMPTZ_ARRAY)},
          ${clock.offsetMs()})`;
  }

  /** Each key's grant into the lease table and the results; requests the grant does not admit go to `refusals`. */
  function applyGrants(batch: [string, KeyEntry][], rows: Record<string, any>[], results: (AdmitOutcome | undefined)[], refusals: Refusal[], sentAt: number) {
    const byOrdinal = new Map<number, Record<string, any>>();
    for (const row of rows) byOrdinal.set(row.ord, row);
    const settledAt = timeOn(clock);
    batch.forEach(([key, e], i) => {
      const row = byOrdinal.get(i + 1);
      if (!row) {
        leases.drop(key); // unknown, revoked or expired: results stay undefined
        return;
      }
      const grant = grantOf(row, sentAt);
      const { counted, handBack } = leases.settle(key, e.hash, grant, settledAt);
      if (handBack.returned > 0) returnLater(key, e.hash, handBack);
      const refused = { info: grant.info, minuteCount: grant.minuteCount - grant.leased, dayCount: grant.dayCount - grant.leased };
      e.waiting.forEach((position, j) => {
        if (j < counted.length) {
          results[position] = { counted: counted[j], admitted: true, retryAfterSeconds: 0 };
          return;
        }
        // PostgreSQL's count includes admissions this process holds in the key's lease (kept
        // from an earlier grant, or leased to another batch in flight): refuseOrLease refuses a
        // request only when neither has room.
        refusals.push({ key, position, outcome: { counted: refused, admitted: false, retryAfterSeconds: row.retry_after_seconds } });
      });
    });
  }

  /**
   * Admissions leased to another batch of the key still in flight were counted against this one,
   * but reach the lease only when that batch settles: refused at once, a request could be turned
   * away while its key's admission sat unspent (a CI run saw 299 of a key's 300 admitted in a
   * burst). So a refusal waits for the key's batches in flight to settle (one statement at most,
   * none when there are none) and takes from the lease then if it can.
   */
  async function refuseOrLease(refusals: Refusal[], results: (AdmitOutcome | undefined)[]) {
    if (refusals.length === 0) return;
    await unsettled.settledFor(new Set(refusals.map((r) => r.key)));
    const now = timeOn(clock);
    for (const { key, position, outcome } of refusals) {
      const leased = leases.take(key, now);
      results[position] = leased ? { counted: leased, admitted: true, retryAfterSeconds: 0 } : outcome;
    }
  }

  const batcher = createStatementBatcher(run, options);
  function returnLater(key: string, hash: Buffer, ask: LeaseAsk) {
    batcher.submit({ key, hash, handBack: ask }).catch(() => {}); // a lost hand-back only wastes admissions until the window ends
  }
  return {
    admit: (key, hash) => batcher.submit({ key, hash }),
    async handBack(key, hash, ask) {
      await batcher.submit({ key, hash, handBack: ask });
    },
  };
}

/** The admission batches in flight, by key: a refusal waits for its key's to settle (refuseOrLease). */
function createUnsettledBatches() {
  const byKey = new Map<string, Set<Promise<void>>>();
  return {
    /** Marks a batch of these keys in flight; the returned function marks it settled. */
    open(keys: string[]): () => void {
      let markSettled!: () => void;
      const settled = new Promise<void>((resolve) => (markSettled = resolve));
      for (const key of keys) {
        let set = byKey.get(key);
        if (!set) byKey.set(key, (set = new Set()));
        set.add(settled);
      }
      return () => {
        for (const key of keys) {
          const set = byKey.get(key)!;
          set.delete(settled);
          if (set.size === 0) byKey.delete(key);
        }
        markSettled();
      };
    },
    /** Resolves once every batch in flight now with any of `keys` has settled. */
    settledFor(keys: Set<string>): Promise<unknown> {
      const pending: Promise<void>[] = [];
      for (const key of keys) for (const settled of byKey.get(key) ?? []) pending.push(settled);
      return Promise.all(pending);
    },
  };
}

/** One ask for a key from two: the extra admissions of the first, the hand-backs of both. */
function combineAsks(a: LeaseAsk, b: LeaseAsk | undefined): LeaseAsk {
  if (!b) return a;
  return { extra: a.extra, returned: a.returned + b.returned, returnedMinute: b.returned > 0 ? b.returnedMinute : a.returnedMinute };
}

export function keyInfo(row: Record<string, any>): KeyInfo {
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

function grantOf(row: Record<string, any>, sentAt: number): Grant {
  return {
    sentAt,
    info: keyInfo(row),
    minuteWindow: row.minute_window,
    minuteCount: row.minute_count,
    dayCount: row.day_count,
    granted: row.granted,
    leased: row.leased,
  };
}
