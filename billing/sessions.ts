// Dashboard sessions, kept in PostgreSQL: the cookie carries a random token and only its SHA-256
// is stored, so a copy of the table cannot be replayed. Each session has its own CSRF token, which
// the page must send back in a header on every state-changing call.
import crypto from 'node:crypto';
import type { Sql } from '../db/connect.ts';

export const SESSION_TTL_HOURS = 12;
const TOKEN_BYTES = 32;

export interface NewSession {
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

/** The signed-in account as a request sees it. */
export interface Session {
  tokenHash: Buffer;
  accountId: number;
  email: string;
  tier: string;
  csrfToken: string;
  passwordMustChange: boolean;
  expiresAt: Date;
}

export function randomToken(): string {
  return crypto.randomBytes(TOKEN_BYTES).toString('base64url');
}

export function sessionTokenHash(token: string): Buffer {
  return crypto.createHash('sha256').update(token).digest();
}

export async function createSession(sql: Sql, accountId: number): Promise<NewSession> {
  const token = randomToken();
  const csrfToken = randomToken();
  // Expired sessions of everyone go at each sign-in: no sweep timer needed for a small table.
  await sql`DELETE FROM dashboard_sessions WHERE expires_at <= now()`;
  const [row] = await sql`
    INSERT INTO dashboard_sessions (token_hash, account_id, csrf_token, expires_at)
    VALUES (${sessionTokenHash(token)}, ${accountId}, ${csrfToken}, now() + make_interval(hours => ${SESSION_TTL_HOURS}))
    RETURNING expires_at`;
  return { token, csrfToken, expiresAt: row.expires_at };
}

/** The live session of a cookie's token, or undefined (unknown, expired or signed out). */
export async function findSession(sql: Sql, token: string): Promise<Session | undefined> {
  if (token === '') return undefined;
  const tokenHash = sessionTokenHash(token);
  const [row] = await sql`
    SELECT s.account_id, s.csrf_token, s.expires_at, a.email, a.tier, a.password_must_change
      FROM dashboard_sessions s JOIN accounts a ON a.id = s.account_id
     WHERE s.token_hash = ${tokenHash} AND s.expires_at > now()`;
  return row && {
    tokenHash, accountId: Number(row.account_id), email: row.email, tier: row.tier,
    csrfToken: row.csrf_token, passwordMustChange: row.password_must_change, expiresAt: row.expires_at,
  };
}

export async function endSession(sql: Sql, tokenHash: Buffer): Promise<void> {
  await sql`DELETE FROM dashboard_sessions WHERE token_hash = ${tokenHash}`;
}

/** Constant-time comparison of a CSRF token sent with a request against the session's. */
export function csrfTokenMatches(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
