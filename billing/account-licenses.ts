// The licenses granted to an account's keys (the dashboard's Licenses page). Listing reads the
// license ids of the account; each license is then read as its key reads it (billing/licenses.ts),
// so the record and certificate are the API's own.
import type { Sql } from '../db/connect.ts';
import { grantingRequestOf, licenseIdOf, readLicense, type LicenseRecord } from './licenses.ts';

export interface AccountLicense extends LicenseRecord {
  key: { id: number; name: string; prefix: string };
}

export async function readAccountLicenses(sql: Sql, accountId: number, limit: number, offset: number): Promise<{ licenses: AccountLicense[]; total_count: number }> {
  const [rows, [count]] = await Promise.all([
    sql`SELECT l.request_id, k.id AS key_id, k.name, k.prefix FROM licenses l JOIN api_keys k ON k.id = l.key_id
         WHERE k.account_id = ${accountId} ORDER BY l.granted_at DESC, l.id DESC LIMIT ${limit} OFFSET ${offset}`,
    sql`SELECT count(*)::integer AS n FROM licenses l JOIN api_keys k ON k.id = l.key_id WHERE k.account_id = ${accountId}`,
  ]);
  const licenses = await Promise.all(rows.map(async (r) => {
    const found = await readLicense(sql, Number(r.key_id), licenseIdOf(r.request_id));
    return { ...found!.license, key: { id: Number(r.key_id), name: r.name, prefix: r.prefix } };
  }));
  return { licenses, total_count: count.n };
}

/** One license of the account with its key's prefix (as billing/licenses.ts reads it), or undefined. */
export async function readAccountLicense(sql: Sql, accountId: number, licenseId: string) {
  const requestId = grantingRequestOf(licenseId);
  if (requestId === undefined) return undefined;
  const [row] = await sql`SELECT l.key_id FROM licenses l JOIN api_keys k ON k.id = l.key_id WHERE l.request_id = ${requestId} AND k.account_id = ${accountId}`;
  return row && readLicense(sql, Number(row.key_id), licenseId);
}
