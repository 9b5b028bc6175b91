// `npm run accounts -- create --email EMAIL [--tier TIER]`, `accounts list`,
// `accounts reset-password --email EMAIL`: dashboard accounts. A new or reset password is a
// one-time password, printed once on stdout; the dashboard asks for a new one at the first sign-in.
import { parseArgs } from 'node:util';
import { databaseLocation } from '../db/environment.ts';
import type { Sql } from '../db/connect.ts';
import { openCommandDatabase, runCommand, usageError, type OnStop } from '../db/command-line.ts';
import { createAccount, emailProblem, findAccountByEmail, setPassword } from './accounts.ts';
import { oneTimePassword } from './passwords.ts';

const USAGE = `usage:
  npm run accounts -- create --email EMAIL [--tier free|starter|pro]   # prints a one-time password
  npm run accounts -- list
  npm run accounts -- reset-password --email EMAIL                     # prints a new one-time password`;

const DEFAULT_TIER = 'free';

async function main(argv: string[], onStop: OnStop): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { email: { type: 'string' }, tier: { type: 'string' } } });
  const [command, ...rest] = positionals;
  if (!['create', 'list', 'reset-password'].includes(command) || rest.length > 0) return usageError(`unknown command "${[command ?? '', ...rest].join(' ')}"`, USAGE);
  if (command !== 'list') {
    if (!values.email) return usageError(`${command} needs --email`, USAGE);
    const problem = emailProblem(values.email);
    if (problem) return usageError(problem, USAGE);
  }
  const config = databaseLocation();
  const db = await openCommandDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, maxConnections: 2 }, onStop);
  try {
    if (command === 'create') return await create(db.sql, values.email!, values.tier ?? DEFAULT_TIER);
    if (command === 'reset-password') return await resetPassword(db.sql, values.email!);
    await list(db.sql);
    return 0;
  } finally {
    await db.close();
  }
}

async function create(sql: Sql, email: string, tier: string): Promise<number> {
  const tiers = (await sql<{ name: string }[]>`SELECT name FROM tiers ORDER BY name`).map((t) => t.name);
  if (!tiers.includes(tier)) return usageError(`unknown tier "${tier}"; tiers: ${tiers.join(', ')}`, USAGE);
  const created = await createAccount(sql, { email, tier });
  if (!created) {
    console.error(`an account with the email "${email}" exists already`);
    return 1;
  }
  console.log(created.password);
  console.error(`created account ${created.account.email} (${tier}); the line above is a one-time password, shown only now: sign in at /dashboard/login and choose your own`);
  return 0;
}

async function resetPassword(sql: Sql, email: string): Promise<number> {
  const account = await findAccountByEmail(sql, email);
  if (!account) {
    console.error(`no account with the email "${email}"`);
    return 1;
  }
  const password = oneTimePassword();
  await setPassword(sql, account.id, password, { oneTime: true });
  console.log(password);
  console.error(`new one-time password for ${account.email} (its sessions are signed out); choose your own at the next sign-in`);
  return 0;
}

async function list(sql: Sql): Promise<void> {
  const rows = await sql`
    SELECT a.email, a.tier, a.created_at, a.is_default, count(k.id)::integer AS keys
      FROM accounts a LEFT JOIN api_keys k ON k.account_id = a.id
     GROUP BY a.id ORDER BY a.created_at, a.id`;
  console.log(['email', 'tier', 'keys', 'created'].join('\t'));
  for (const r of rows) console.log([r.email + (r.is_default ? ' (default)' : ''), r.tier, r.keys, r.created_at.toISOString()].join('\t'));
}

runCommand(main);
