// The license a paid download grants (spec 1, rule 2): written by the statement that charges it,
// and read back by its key (GET /licenses, GET /licenses/{id}).
//
// A license is named after the request that granted it: the download's X-Request-Id
// "req_<tag>_<n>" grants "lic_<tag>_<n>". The id is known before the charge is written (so a
// cached clip's reply can carry it without a second statement), a replay of the download under
// the same Idempotency-Key names the first request's license, and a license row keeps that
// request id already (a give-back deletes it by that id).
import type { Sql } from '../db/connect.ts';

export interface License {
  trackId: string;
  durationSeconds: number | null;
  hitPointSeconds: number | null;
  clipStartSeconds: number | null;
}

const REQUEST_PREFIX = 'req_';
const LICENSE_PREFIX = 'lic_';
// The shape request-id.ts makes: an 8-character base64url process tag and a base-36 counter.
const LICENSE_ID = /^lic_[A-Za-z0-9_-]{8}_[0-9a-z]{1,13}$/;

/** The id of the license granted by a request. */
export function licenseIdOf(requestId: string): string {
  return LICENSE_PREFIX + requestId.slice(REQUEST_PREFIX.length);
}

/** The request that granted a license, or undefined when the id is not shaped like a license id. */
export function grantingRequestOf(licenseId: string): string | undefined {
  return LICENSE_ID.test(licenseId) ? REQUEST_PREFIX + licenseId.slice(LICENSE_PREFIX.length) : undefined;
}

/** A license as its key sees it. Seconds to 3 decimals (the clip headers' precision). */
export interface LicenseRecord {
  license_id: string;
  track_id: string;
  title: string;
  artist: string;
  /** null: the full track. start_seconds: where the clip begins in the track. */
  clip: { duration_seconds: number; hit_point_seconds: number | null; start_seconds: number | null } | null;
  granted_at: string;
}

export interface LicensePage {
  licenses: LicenseRecord[];
  total_count: number;
}

// The title and artist of a removed track still name what was licensed: the join keeps them.
const LICENSE_COLUMNS = 'l.request_id, l.track_id, t.title, t.artist, l.duration_seconds, l.hit_point_seconds, l.clip_start_seconds, l.granted_at';

/** The key's licenses, newest first (ties by id, newest first). */
export async function readLicensePage(sql: Sql, keyId: number, limit: number, offset: number): Promise<LicensePage> {
  const [rows, [count]] = await Promise.all([
    sql`SELECT ${sql.unsafe(LICENSE_COLUMNS)} FROM licenses l JOIN tracks t ON t.id = l.track_id
         WHERE l.key_id = ${keyId} ORDER BY l.granted_at DESC, l.id DESC LIMIT ${limit} OFFSET ${offset}`,
    sql`SELECT count(*)::integer AS n FROM licenses WHERE key_id = ${keyId}`,
  ]);
  return { licenses: rows.map(licenseRecord), total_count: count.n };
}

/** One license of the key with its key's display prefix, or undefined (another key's license is not found either). */
export async function readLicense(sql: Sql, keyId: number, licenseId: string): Promise<{ license: LicenseRecord; keyPrefix: string } | undefined> {
  const requestId = grantingRequestOf(licenseId);
  if (requestId === undefined) return undefined;
  const [row] = await sql`
    SELECT ${sql.unsafe(LICENSE_COLUMNS)}, k.prefix FROM licenses l JOIN tracks t ON t.id = l.track_id JOIN api_keys k ON k.id = l.key_id
     WHERE l.request_id = ${requestId} AND l.key_id = ${keyId}`;
  return row && { license: licenseRecord(row), keyPrefix: row.prefix };
}

function licenseRecord(row: Record<string, any>): LicenseRecord {
  const clip = row.duration_seconds === null ? null : {
    duration_seconds: row.duration_seconds,
    hit_point_seconds: row.hit_point_seconds,
    start_seconds: row.clip_start_seconds === null ? null : Math.round(row.clip_start_seconds * 1000) / 1000,
  };
  return {
    license_id: licenseIdOf(row.request_id),
    track_id: row.track_id,
    title: row.title,
    artist: row.artist,
    clip,
    granted_at: row.granted_at.toISOString(),
  };
}
