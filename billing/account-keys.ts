// An account's API keys as the dashboard sees them: every query is bounded by the account, so one
// account can neither see nor change another's keys (another's key id reads as no key at all).
import type { Sql } from '../db/connect.ts';
import { createApiKey, type NewKey } from './api-keys.ts';

export interface AccountKey {
  id: number;
  name: string;
  prefix: string;
  tier: string;
  /** The balance the key's next request starts from (a monthly allowance due is shown as granted). */
  credits: number;
  monthly_allowance: number;
  rate_limit: { requests_per_minute: number; requests_per_day: number | null };
  created_at: string;
  last_used_at: string | null;
  status: 'active' | 'revoked' | 'expired';
}

export const MAX_KEY_NAME_LENGTH = 100;

export async function listAccountKeys(sql: Sql, accountId: number): Promise<AccountKey[]> {
  const rows = await sql`
    SELECT k.id, k.name, k.prefix, k.tier, k.created_at, k.last_used_at,
           CASE WHEN t.monthly_credits > 0 AND k.credits_period IS DISTINCT FROM date_trunc('month', now() AT TIME ZONE 'UTC')::date
                THEN t.monthly_credits ELSE k.credits END AS credits,
           t.monthly_credits, t.requests_per_minute, t.requests_per_day,
           CASE WHEN k.revoked_at IS NOT NULL THEN 'revoked'
                WHEN k.expires_at IS NOT NULL AND k.expires_at <= now() THEN 'expired'
                ELSE 'active' END AS status
      FROM api_keys k JOIN tiers t ON t.name = k.tier
     WHERE k.account_id = ${accountId}
     ORDER BY k.created_at DESC, k.id DESC`;
  return rows.map((r) => ({
    id: Number(r.id), name: r.name, prefix: r.prefix, tier: r.tier, credits: r.credits, monthly_allowance: r.monthly_credits,
    rate_limit: { requests_per_minute: r.requests_per_minute, requests_per_day: r.requests_per_day },
    created_at: r.created_at.toISOString(), last_used_at: r.last_used_at?.toISOString() ?? null, status: r.status,
  }));
}

/** A new key of the account's tier, owned by the account. */
export async function createAccountKey(sql: Sql, accountId: number, name: string): Promise<NewKey> {
  const [account] = await sql`SELECT tier FROM accounts WHERE id = ${accountId}`;
  return createApiKey(sql, { name, tier: account.tier, accountId });
}

/** Revokes one of the account's active keys; false when it has no such key (or it is revoked already). */
export async function revokeAccountKey(sql: Sql, accountId: number, keyId: number): Promise<boolean> {
  const rows = await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${keyId} AND account_id = ${accountId} AND revoked_at IS NULL RETURNING id`;
  return rows.length === 1;
}

/** The stored hash of one of the account's keys (to act with it without its secret), or undefined. */
export async function accountKeyHash(sql: Sql, accountId: number, keyId: number): Promise<Buffer | undefined> {
  const [row] = await sql`SELECT key_hash FROM api_keys WHERE id = ${keyId} AND account_id = ${accountId}`;
  return row?.key_hash;
}
