// API keys: random, shown once, stored as SHA-256 hashes with a short display prefix.
import crypto from 'node:crypto';
import type { Sql } from '../db/connect.ts';

const KEY_PATTERN = /^mla_[A-Za-z0-9_-]{43}$/;
const PREFIX_LENGTH = 12; // "mla_" + 8 characters

export function generateApiKey(): string {
  return 'mla_' + crypto.randomBytes(32).toString('base64url');
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/**
 * The display prefix of a key ("mla_" + 8 characters, as `keys list` shows it): enough to tell
 * keys apart in logs, useless to call with. Undefined for a token not shaped like a key.
 */
export function displayPrefixOf(key: string): string | undefined {
  return isWellFormedApiKey(key) ? key.slice(0, PREFIX_LENGTH) : undefined;
}

export function hashApiKey(key: string): Buffer {
  return crypto.createHash('sha256').update(key).digest();
}

export interface NewKey {
  key: string;
  prefix: string;
  id: number;
}

/** `accountId`: the account that owns the key (default: the default account, migration 015). */
export async function createApiKey(sql: Sql, options: { name: string; tier: string; expiresAt?: Date; accountId?: number }): Promise<NewKey> {
  const key = generateApiKey();
  const prefix = displayPrefixOf(key)!;
  const [row] = await sql<{ id: number }[]>`
    INSERT INTO api_keys (key_hash, prefix, name, tier, credits, credits_period, expires_at, account_id)
    SELECT ${hashApiKey(key)}, ${prefix}, ${options.name}, t.name, t.initial_credits,
           CASE WHEN t.monthly_credits > 0 THEN date_trunc('month', now() AT TIME ZONE 'UTC')::date END,
           ${options.expiresAt ?? null},
           coalesce(${options.accountId ?? null}::bigint, (SELECT a.id FROM accounts a WHERE a.is_default))
      FROM tiers t WHERE t.name = ${options.tier}
    RETURNING id`;
  if (!row) throw new Error(`unknown tier "${options.tier}"`);
  return { key, prefix, id: row.id };
}

export interface KeyListing {
  prefix: string;
  name: string;
  tier: string;
  credits: number;
  created_at: Date;
  last_used_at: Date | null;
  status: 'active' | 'revoked' | 'expired';
}

export function listApiKeys(sql: Sql): Promise<KeyListing[]> {
  return sql<KeyListing[]>`
    SELECT prefix, name, tier, credits, created_at, last_used_at,
           CASE WHEN revoked_at IS NOT NULL THEN 'revoked'
                WHEN expires_at IS NOT NULL AND expires_at <= now() THEN 'expired'
                ELSE 'active' END AS status
      FROM api_keys ORDER BY created_at, id`;
}

/** Revokes the key with this display prefix; returns false when no active key has it. */
export async function revokeApiKey(sql: Sql, prefix: string): Promise<boolean> {
  const rows = await sql`UPDATE api_keys SET revoked_at = now() WHERE prefix = ${prefix} AND revoked_at IS NULL RETURNING id`;
  return rows.length === 1;
}

export async function isActiveApiKey(sql: Sql, key: string): Promise<boolean> {
  if (!isWellFormedApiKey(key)) return false;
  const rows = await sql`
    SELECT 1 FROM api_keys WHERE key_hash = ${hashApiKey(key)}
       AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`;
  return rows.length === 1;
}
