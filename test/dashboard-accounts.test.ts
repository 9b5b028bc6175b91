// Accounts (issue 18): the accounts CLI and `keys create --account` as `npm run` runs them (child
// processes against a real PostgreSQL), the default account that owns older and unassigned keys,
// and the dashboard sign-in `npm start` prints (billing/demo-account.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { connectSql, type Sql } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import { createApiKey } from '../billing/api-keys.ts';
import { findAccountByEmail, setPassword } from '../billing/accounts.ts';
import { verifyPassword } from '../billing/passwords.ts';
import { ensureDemoAccount } from '../billing/demo-account.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
let db: TestDatabase;
let sql: Sql;

before(async () => {
  db = await createTestDatabase();
  sql = connectSql(db.url, 2);
  await migrate(sql);
});
after(async () => {
  await sql?.end();
  await db?.drop();
});

function run(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { cwd: root, env: { ...process.env, DATABASE_URL: db.url } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}
const accounts = (...args: string[]) => run('billing/account-cli.ts', args);
const keys = (...args: string[]) => run('billing/cli.ts', args);

test('keys made without an account belong to the default account', async () => {
  const { id } = await createApiKey(sql, { name: 'older', tier: 'free' });
  const [row] = await sql`SELECT a.email, a.is_default FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = ${id}`;
  assert.deepEqual({ ...row }, { email: 'owner@localhost', is_default: true });
  const [column] = await sql`SELECT is_nullable FROM information_schema.columns WHERE table_name = 'api_keys' AND column_name = 'account_id'`;
  assert.equal(column.is_nullable, 'NO');
});

test('accounts create prints a one-time password once; the email is unique whatever its case', async () => {
  const created = await accounts('create', '--email', 'Ana@Example.com', '--tier', 'starter');
  assert.equal(created.code, 0, created.stderr);
  const password = created.stdout.trim();
  assert.match(password, /^[A-Za-z0-9_-]{24}$/);
  assert.match(created.stderr, /one-time password/);
  const account = (await findAccountByEmail(sql, 'ana@example.COM'))!;
  assert.equal(account.tier, 'starter');
  assert.equal(account.passwordMustChange, true);
  assert.match(account.passwordHash!, /^scrypt\$32768\$8\$1\$/);
  assert.ok(!account.passwordHash!.includes(password), 'never stored in plain');
  assert.equal(await verifyPassword(password, account.passwordHash), true);
  assert.equal(await verifyPassword(password + 'x', account.passwordHash), false);

  const again = await accounts('create', '--email', 'ana@example.com');
  assert.equal(again.code, 1);
  assert.match(again.stderr, /exists already/);
  assert.equal(again.stdout, '');
});

test('accounts CLI refuses bad input with a message naming it', async () => {
  const cases: [string[], RegExp][] = [
    [['create'], /create needs --email/],
    [['create', '--email', 'not-an-address'], /"not-an-address" is not an email address/],
    [['create', '--email', 'b@example.com', '--tier', 'gold'], /unknown tier "gold"; tiers: free, pro, starter/],
    [['delete'], /unknown command "delete"/],
    [['reset-password', '--email', 'nobody@example.com'], /no account with the email "nobody@example.com"/],
  ];
  for (const [args, message] of cases) {
    const result = await accounts(...args);
    assert.notEqual(result.code, 0, args.join(' '));
    assert.match(result.stderr, message);
  }
});

test('keys create --account gives the key to that account; an unknown account is refused', async () => {
  await accounts('create', '--email', 'keys@example.com');
  const made = await keys('create', '--name', 'shop', '--tier', 'free', '--account', 'KEYS@example.com');
  assert.equal(made.code, 0, made.stderr);
  const [row] = await sql`SELECT a.email FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.name = 'shop'`;
  assert.equal(row.email, 'keys@example.com');
  const refused = await keys('create', '--name', 'x', '--tier', 'free', '--account', 'ghost@example.com');
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /no account with the email "ghost@example.com"/);
  const listed = await accounts('list');
  assert.match(listed.stdout, /keys@example\.com\tfree\t1\t/);
  assert.match(listed.stdout, /owner@localhost \(default\)\tpro\t/);
});

test('reset-password prints a new one-time password and signs the account out', async () => {
  await accounts('create', '--email', 'reset@example.com');
  const account = (await findAccountByEmail(sql, 'reset@example.com'))!;
  await sql`INSERT INTO dashboard_sessions (token_hash, account_id, csrf_token, expires_at) VALUES ('\\x01', ${account.id}, 'c', now() + interval '1 hour')`;
  const reset = await accounts('reset-password', '--email', 'reset@example.com');
  assert.equal(reset.code, 0, reset.stderr);
  const after = (await findAccountByEmail(sql, 'reset@example.com'))!;
  assert.equal(await verifyPassword(reset.stdout.trim(), after.passwordHash), true);
  assert.equal((await sql`SELECT 1 FROM dashboard_sessions WHERE account_id = ${account.id}`).length, 0);
});

test('the first start gives the default account a one-time password and prints it until it is changed', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-demo-account-'));
  try {
    const first = await ensureDemoAccount(sql, dataDir);
    assert.equal(first.email, 'owner@localhost');
    assert.ok(first.password);
    assert.equal((fs.statSync(path.join(dataDir, 'dashboard-password')).mode & 0o777).toString(8), '600');
    assert.deepEqual(await ensureDemoAccount(sql, dataDir), first, 'printed again at the next start');
    const owner = (await findAccountByEmail(sql, 'owner@localhost'))!;
    await setPassword(sql, owner.id, 'a password of my own', { oneTime: false });
    assert.deepEqual(await ensureDemoAccount(sql, dataDir), { email: 'owner@localhost' });
    assert.equal(fs.existsSync(path.join(dataDir, 'dashboard-password')), false);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
