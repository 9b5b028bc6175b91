// A signed-in dashboard session for HTTP tests: an account with a known password, its cookie and
// CSRF token, and calls made as the page makes them.
import assert from 'node:assert/strict';
import type { Sql } from '../../db/connect.ts';
import { createAccount, setPassword } from '../../billing/accounts.ts';

export const TEST_PASSWORD = 'correct horse battery';

export interface DashboardClient {
  email: string;
  accountId: number;
  cookie: string;
  csrf: string;
  call(method: string, path: string, body?: unknown, options?: { csrf?: string | null; headers?: Record<string, string> }): Promise<Response>;
  json(method: string, path: string, body?: unknown): Promise<any>;
}

/** An account whose password is TEST_PASSWORD (not a one-time one). */
export async function newAccount(sql: Sql, email: string, tier = 'starter'): Promise<number> {
  const created = await createAccount(sql, { email, tier });
  assert.ok(created, `account ${email} exists already`);
  await setPassword(sql, created.account.id, TEST_PASSWORD, { oneTime: false });
  return created.account.id;
}

/** The form's token and its cookie, as the sign-in page gets them. */
export async function loginToken(base: string): Promise<{ token: string; cookie: string }> {
  const response = await fetch(`${base}/dashboard/api/login-token`);
  assert.equal(response.status, 200);
  const cookie = response.headers.get('set-cookie')!.split(';')[0];
  return { token: (await response.json()).csrf_token, cookie };
}

export async function login(base: string, email: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  const { token, cookie } = await loginToken(base);
  return fetch(`${base}/dashboard/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': token, ...headers },
    body: JSON.stringify({ email, password }),
  });
}

export async function signIn(base: string, sql: Sql, email: string, password = TEST_PASSWORD): Promise<DashboardClient> {
  const response = await login(base, email, password);
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  const cookie = response.headers.get('set-cookie')!.split(';')[0];
  const [{ id }] = await sql`SELECT id FROM accounts WHERE lower(email) = lower(${email})`;
  const client: DashboardClient = {
    email, accountId: Number(id), cookie, csrf: body.csrf_token,
    call(method, path, payload, options = {}) {
      const headers: Record<string, string> = { cookie: client.cookie, ...options.headers };
      const csrf = options.csrf === undefined ? client.csrf : options.csrf;
      if (csrf !== null) headers['x-csrf-token'] = csrf;
      if (payload !== undefined) headers['content-type'] = 'application/json';
      return fetch(`${base}${path}`, { method, headers, body: payload === undefined ? undefined : JSON.stringify(payload) });
    },
    async json(method, path, payload) {
      const response = await client.call(method, path, payload);
      const text = await response.text();
      assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
      return JSON.parse(text);
    },
  };
  return client;
}
