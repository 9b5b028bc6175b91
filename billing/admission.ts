// Authentication and rate limiting: from an admission lease in memory when this process holds one
// for the key (admission-leases.ts), otherwise in one database round trip shared by the requests
// of one batch (admit_keys in the migrations, admission-batcher.ts).
import type { Sql } from '../db/connect.ts';
import { Refusal } from './refusal.ts';
import type { Balance } from './ledger.ts';
import { hashApiKey, isWellFormedApiKey } from './api-keys.ts';
import { createAdmissionBatcher, keyInfo } from './admission-batcher.ts';
import { createLeaseTable, LEASE_MS, type Counted, type KeyInfo, type LeaseTable } from './admission-leases.ts';
import { REAL_TIME, timeOn, type WindowClock } from './window-clock.ts';

/** The key (as of its last grant) and this request's view of its windows. */
export interface Admission extends Omit<KeyInfo, 'expiresAt'> {
  lastUsedAt: Date;
  minuteCount: number;
  dayCount: number;
  admitted: boolean;
  retryAfterSeconds: number;
  /** When the request was counted, on the windows' clock (ms): its windows are the ones holding this time. */
  countedAtMs: number;
}

/**
 * "Bearer", spaces, a token of visible ASCII, nothing else. Strict: JavaScript's \s would pass a
 * trailing tab, CR, NBSP (\xa0) or U+3000 as if it were the end of the header. uWS itself trims
 * spaces and tabs around every header value before we see it (HTTP's optional whitespace), and on
 * x64 also any bytes 0x80-0xFF there (its parser compares a signed char with 33), so those never
 * reach this function; anywhere else, or where char is unsigned (linux-arm64), they are malformed.
 */
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

export function bearerToken(authorization: string): string | undefined {
  const match = BEARER.exec(authorization);
  return match ? match[1] : undefined;
}

export interface Admitter {
  /** Resolves an Authorization header to an admission, or throws an 'unauthorized' Refusal naming the cause. */
  admit(authorization: string): Promise<Admission>;
  /**
   * A provisional admission for a key this process admitted recently and will most likely admit
   * again (see LeaseTable.peek), without counting anything: lets read-only work start while the
   * real admission is counted in PostgreSQL. Undefined for any other header, and for a key
   * whose leased admissions will admit it at once (nothing to overlap).
   */
  likely(authorization: string): Admission | undefined;
  /**
   * Admits a request for the key with this stored hash (the dashboard acts for its account's keys
   * without their secrets): counted in PostgreSQL one by one, never leased, so it adds nothing
   * to the leases of the API's path. Throws an 'unauthorized' Refusal as admit() does.
   */
  admitStoredKey(hash: Buffer): Promise<Admission>;
  /** Tells the admission leases a key's balance a ledger statement returned, so later responses of this process show it if it is the newest. */
  noteBalance(keyId: number, balance: Balance): void;
  /** Hands every unused leased admission back to PostgreSQL now. */
  handBackLeases(): Promise<void>;
  /** Hands back unused leased admissions and stops listening for key changes. */
  close(): Promise<void>;
}

/**
 * `countingSql` runs the counting (rate limits); `sql` the rare lookups of why a key was refused
 * and the LISTEN for key changes that drops leases. `clock`: the windows' clock (window-clock.ts).
 */
export async function createAdmitter(countingSql: Sql, sql: Sql = countingSql, clock: WindowClock = REAL_TIME): Promise<Admitter> {
  const leases = createLeaseTable();
  const batcher = createAdmissionBatcher(countingSql, leases, { clock });
  const listening = await sql.listen('api_key_changed', (hex) => leases.dropHash(hex));
  // A lost hand-back only wastes admissions until their window ends.
  const handBack = (unused: ReturnType<LeaseTable['unusedAll']>) =>
    Promise.all(unused.map(({ key, hash, ask }) => batcher.handBack(key, hash, ask).catch(() => {})));
  const sweep = setInterval(() => handBack(leases.lapsed(timeOn(clock))), LEASE_MS);
  sweep.unref();

  return {
    async admit(authorization) {
      if (authorization === '') throw unauthorized('missing Authorization header; send "Authorization: Bearer <API_KEY>"');
      const key = bearerToken(authorization);
      if (key === undefined) throw unauthorized('malformed Authorization header; expected "Bearer <API_KEY>"');
      if (!isWellFormedApiKey(key)) throw unauthorized('malformed API key');
      const now = timeOn(clock);
      const leased = leases.take(key, now);
      if (leased) return admissionOf(leased, true, 0, now);
      const hash = hashApiKey(key);
      const outcome = await batcher.admit(key, hash);
      if (!outcome) throw unauthorized(await refusalReason(sql, hash));
      return admissionOf(outcome.counted, outcome.admitted, outcome.retryAfterSeconds, timeOn(clock));
    },
    likely(authorization) {
      const key = bearerToken(authorization);
      const now = timeOn(clock);
      const info = key === undefined || leases.holds(key, now) ? undefined : leases.peek(key, now);
      return info && admissionOf({ info, minuteCount: 0, dayCount: 0 }, true, 0, now);
    },
    async admitStoredKey(hash) {
      const offsetMs = clock.offsetMs();
      const [row] = await countingSql`SELECT * FROM admit_keys(ARRAY[${hash}]::bytea[], ARRAY[1], ARRAY[0], ARRAY[0], ARRAY['epoch'::timestamptz], ${offsetMs})`;
      if (!row) throw unauthorized(await refusalReason(sql, hash));
      const counted = { info: keyInfo(row), minuteCount: row.minute_count, dayCount: row.day_count };
      return admissionOf(counted, row.granted === 1, row.retry_after_seconds, timeOn(clock));
    },
    noteBalance: (keyId, balance) => leases.noteCredits(keyId, balance, timeOn(clock)),
    async handBackLeases() {
      await handBack(leases.unusedAll());
    },
    async close() {
      clearInterval(sweep);
      await handBack(leases.unusedAll());
      await listening.unlisten();
    },
  };
}

function admissionOf({ info, minuteCount, dayCount }: Counted, admitted: boolean, retryAfterSeconds: number, countedAtMs: number): Admission {
  // Field by field: object rest and spread here took ~5% of a /me request's CPU (profiled).
  return {
    keyId: info.keyId, tier: info.tier, credits: info.credits, monthlyCredits: info.monthlyCredits,
    intentExtraction: info.intentExtraction, createdAt: info.createdAt,
    requestsPerMinute: info.requestsPerMinute, requestsPerDay: info.requestsPerDay,
    lastUsedAt: new Date(), minuteCount, dayCount, admitted, retryAfterSeconds, countedAtMs,
  };
}

async function refusalReason(sql: Sql, hash: Buffer): Promise<string> {
  const [row] = await sql`SELECT revoked_at, expires_at FROM api_keys WHERE key_hash = ${hash}`;
  if (!row) return 'unknown API key';
  if (row.revoked_at) return 'API key has been revoked';
  return `API key expired at ${row.expires_at.toISOString()}`;
}

function unauthorized(message: string): Refusal {
  return new Refusal('unauthorized', message);
}

/** Which window refused a request that was not admitted: the day's when it is used up, else the minute's. */
export function refusedWindow(admission: Admission): 'minute' | 'day' {
  return admission.requestsPerDay !== null && admission.dayCount >= admission.requestsPerDay ? 'day' : 'minute';
}
