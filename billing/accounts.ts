// Dashboard accounts: an email (unique whatever its case), a scrypt password hash, the tier of the
// keys made in the dashboard. Every API key belongs to one account (migration 015).
import type { Sql } from '../db/connect.ts';
import { hashPassword, oneTimePassword } from './passwords.ts';

export interface Account {
  id: number;
  email: string;
  tier: string;
  passwordHash: string | null;
  passwordMustChange: boolean;
  isDefault: boolean;
  createdAt: Date;
}

// Deliberately loose (one @, something either side, no spaces): mail is never sent, the address
// is a sign-in name, and the real check would be a confirmation mail.
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const MAX_EMAIL_LENGTH = 254;

/** Why an email cannot name an account, or undefined. */
export function emailProblem(email: string): string | undefined {
  if (email.length > MAX_EMAIL_LENGTH) return `email is longer than ${MAX_EMAIL_LENGTH} characters`;
  if (!EMAIL.test(email)) return `"${email}" is not an email address`;
  return undefined;
}

function accountOf(row: Record<string, any>): Account {
  return {
    id: Number(row.id), email: row.email, tier: row.tier, passwordHash: row.password_hash,
    passwordMustChange: row.password_must_change, isDefault: row.is_default, createdAt: row.created_at,
  };
}

export async function findAccountByEmail(sql: Sql, email: string): Promise<Account | undefined> {
  const [row] = await sql`SELECT * FROM accounts WHERE lower(email) = lower(${email.trim()})`;
  return row && accountOf(row);
}

export async function findAccountById(sql: Sql, id: number): Promise<Account | undefined> {
  const [row] = await sql`SELECT * FROM accounts WHERE id = ${id}`;
  return row && accountOf(row);
}

export async function defaultAccount(sql: Sql): Promise<Account> {
  const [row] = await sql`SELECT * FROM accounts WHERE is_default`;
  return accountOf(row);
}

/** Creates an account with a one-time password (to be changed at first sign-in); undefined when the email is taken. */
export async function createAccount(sql: Sql, options: { email: string; tier: string }): Promise<{ account: Account; password: string } | undefined> {
  const password = oneTimePassword();
  const [row] = await sql`
    INSERT INTO accounts (email, tier, password_hash, password_must_change)
    VALUES (${options.email.trim()}, ${options.tier}, ${await hashPassword(password)}, true)
    ON CONFLICT DO NOTHING RETURNING *`;
  return row && { account: accountOf(row), password };
}

/**
 * Sets an account's password. `oneTime`: it must be changed at the next sign-in. A new password
 * ends every other session of the account (`keepSession`: the token hash of the one that changed it).
 */
export async function setPassword(sql: Sql, accountId: number, password: string, options: { oneTime: boolean; keepSession?: Buffer }): Promise<void> {
  const hash = await hashPassword(password);
  await sql.begin(async (tx) => {
    await tx`UPDATE accounts SET password_hash = ${hash}, password_must_change = ${options.oneTime} WHERE id = ${accountId}`;
    await tx`DELETE FROM dashboard_sessions WHERE account_id = ${accountId} AND token_hash IS DISTINCT FROM ${options.keepSession ?? null}`;
  });
}
