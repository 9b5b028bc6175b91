// Authentication and rate limiting in one database round trip, shared by the requests of one
// batch (admit_requests in the migrations, admission-batcher.ts).
import type { Sql } from '../db/connect.ts';
import { ApiError } from '../http/api-error.ts';
import { hashApiKey, isWellFormedApiKey } from './api-keys.ts';
import { createAdmissionBatcher } from './admission-batcher.ts';

export interface Admission {
  keyId: number;
  tier: string;
  credits: number;
  monthlyCredits: number;
  intentExtraction: boolean;
  createdAt: Date;
  lastUsedAt: Date;
  requestsPerMinute: number;
  /** null: no daily limit. */
  requestsPerDay: number | null;
  minuteCount: number;
  dayCount: number;
  admitted: boolean;
  retryAfterSeconds: number;
}

export function bearerToken(authorization: string): string | undefined {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
  return match ? match[1] : undefined;
}

export type Admit = (authorization: string) => Promise<Admission>;

/** Returns a function that resolves an Authorization header to an admission, or throws a 401 ApiError naming the cause. */
/** `countingSql` runs the counting (rate limits); `sql` the rare lookups of why a key was refused. */
export function createAdmit(countingSql: Sql, sql: Sql = countingSql): Admit {
  const batcher = createAdmissionBatcher(countingSql);
  return async (authorization) => {
    if (authorization === '') throw unauthorized('missing Authorization header; send "Authorization: Bearer <API_KEY>"');
    const key = bearerToken(authorization);
    if (key === undefined) throw unauthorized('malformed Authorization header; expected "Bearer <API_KEY>"');
    if (!isWellFormedApiKey(key)) throw unauthorized('malformed API key');
    const hash = hashApiKey(key);
    const row = await batcher.admit(hash);
    if (!row) throw unauthorized(await refusalReason(sql, hash));
    return {
      keyId: row.key_id,
      tier: row.tier,
      credits: row.credits,
      monthlyCredits: row.monthly_credits,
      intentExtraction: row.intent_extraction,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      requestsPerMinute: row.requests_per_minute,
      requestsPerDay: row.requests_per_day,
      minuteCount: row.minute_count,
      dayCount: row.day_count,
      admitted: row.admitted,
      retryAfterSeconds: row.retry_after_seconds,
    };
  };
}

async function refusalReason(sql: Sql, hash: Buffer): Promise<string> {
  const [row] = await sql`SELECT revoked_at, expires_at FROM api_keys WHERE key_hash = ${hash}`;
  if (!row) return 'unknown API key';
  if (row.revoked_at) return 'API key has been revoked';
  return `API key expired at ${row.expires_at.toISOString()}`;
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, 'unauthorized', message);
}

/** The rate-limit and credit headers of spec 8.3, for every authenticated response. */
export function limitHeaders(admission: Admission, creditsRemaining: number): Record<string, string> {
  const daily = admission.requestsPerDay;
  return {
    'X-RateLimit-Limit': String(admission.requestsPerMinute),
    'X-RateLimit-Remaining': String(Math.max(0, admission.requestsPerMinute - admission.minuteCount)),
    'X-RateLimit-Limit-Daily': daily === null ? 'unlimited' : String(daily),
    'X-RateLimit-Remaining-Daily': daily === null ? 'unlimited' : String(Math.max(0, daily - admission.dayCount)),
    'X-Credits-Remaining': String(creditsRemaining),
  };
}
