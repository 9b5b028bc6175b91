// The dashboard sign-in printed at start: the default account (migration 015, owner of the demo
// key) gets a one-time password on the first start, kept in DATA_DIR/dashboard-password so every
// start can print it until it is changed at the first sign-in.
import fs from 'node:fs';
import path from 'node:path';
import type { Sql } from '../db/connect.ts';
import { defaultAccount, setPassword } from './accounts.ts';
import { oneTimePassword, verifyPassword } from './passwords.ts';

export interface DemoSignIn {
  email: string;
  /** The one-time password, while it is still the account's password. */
  password?: string;
}

export async function ensureDemoAccount(sql: Sql, dataDir: string): Promise<DemoSignIn> {
  const file = path.join(dataDir, 'dashboard-password');
  const account = await defaultAccount(sql);
  if (account.passwordHash === null) {
    const password = oneTimePassword();
    await setPassword(sql, account.id, password, { oneTime: true });
    fs.writeFileSync(file, password + '\n', { mode: 0o600 });
    return { email: account.email, password };
  }
  if (fs.existsSync(file)) {
    const password = fs.readFileSync(file, 'utf8').trim();
    if (account.passwordMustChange && (await verifyPassword(password, account.passwordHash))) return { email: account.email, password };
    fs.rmSync(file, { force: true }); // changed since: the file would only mislead
  }
  return { email: account.email };
}
