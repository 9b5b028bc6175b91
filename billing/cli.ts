// `npm run keys -- create --name NAME --tier TIER [--expires DATE] [--account EMAIL]`, `keys list`,
// `keys revoke PREFIX`. A key belongs to an account: the one named, or the default account.
import { parseArgs } from 'node:util';
import { databaseLocation } from '../db/environment.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.ts';
import { openCommandDatabase, runCommand, usageError, type OnStop } from '../db/command-line.ts';
import { findAccountByEmail } from './accounts.ts';

const USAGE = `usage:
  npm run keys -- create --name NAME --tier free|starter|pro [--expires YYYY-MM-DD|ISO-8601] [--account EMAIL]
  npm run keys -- list
  npm run keys -- revoke PREFIX`;

async function main(argv: string[], onStop: OnStop): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, tier: { type: 'string' }, expires: { type: 'string' }, account: { type: 'string' } },
  });
  const [command, ...rest] = positionals;
  if (!['create', 'list', 'revoke'].includes(command)) return fail(`unknown command "${command ?? ''}"`);

  let expiresAt: Date | undefined;
  if (command === 'create') {
    if (!values.name) return fail('create needs --name');
    if (!values.tier) return fail('create needs --tier');
    if (values.expires) {
      expiresAt = new Date(values.expires);
      if (Number.isNaN(expiresAt.getTime())) return fail(`--expires "${values.expires}" is not a date`);
    }
  }
  if (command === 'revoke' && rest.length !== 1) return fail('revoke needs the key prefix shown by "keys list"');

  const config = databaseLocation();
  const db = await openCommandDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, maxConnections: 2 }, onStop);
  try {
    if (command === 'create') {
      const tiers = await db.sql<{ name: string }[]>`SELECT name FROM tiers ORDER BY name`;
      if (!tiers.some((t) => t.name === values.tier)) return fail(`unknown tier "${values.tier}"; tiers: ${tiers.map((t) => t.name).join(', ')}`);
      const account = values.account === undefined ? undefined : await findAccountByEmail(db.sql, values.account);
      if (values.account !== undefined && !account) return fail(`no account with the email "${values.account}" (npm run accounts -- list)`);
      const created = await createApiKey(db.sql, { name: values.name!, tier: values.tier!, expiresAt, accountId: account?.id });
      console.log(created.key);
      console.error(`created key ${created.prefix}... (${values.tier}); it is shown only now: store it safely`);
    } else if (command === 'list') {
      printTable(await listApiKeys(db.sql));
    } else {
      if (!(await revokeApiKey(db.sql, rest[0]))) return fail(`no active key with prefix "${rest[0]}"`);
      console.log(`revoked ${rest[0]}`);
    }
    return 0;
  } finally {
    await db.close();
  }
}

function printTable(rows: Awaited<ReturnType<typeof listApiKeys>>) {
  const table = rows.map((r) => ({
    prefix: r.prefix,
    name: r.name,
    tier: r.tier,
    credits: String(r.credits),
    created: r.created_at.toISOString(),
    last_used: r.last_used_at ? r.last_used_at.toISOString() : '-',
    status: r.status,
  }));
  const columns = ['prefix', 'name', 'tier', 'credits', 'created', 'last_used', 'status'] as const;
  const widths = columns.map((c) => Math.max(c.length, ...table.map((r) => r[c].length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ');
  console.log(line([...columns]));
  for (const r of table) console.log(line(columns.map((c) => r[c])));
}

function fail(message: string): number {
  return usageError(message, USAGE);
}

runCommand(main);
