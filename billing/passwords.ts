// Dashboard passwords: scrypt (node:crypto) with a random salt per password, stored as
// "scrypt$N$r$p$salt$hash" (base64url), so the cost can be raised later without breaking old hashes.
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;

// OWASP's scrypt floor is N=2^17, r=8, p=1 (128 MiB); 2^15 (32 MiB, ~50-100 ms here) keeps a sign-in
// burst on a 2-core machine from exhausting memory, and the login throttle bounds guessing anyway.
const COST_N = 2 ** 15;
const BLOCK_R = 8;
const PARALLEL_P = 1;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const MAX_MEMORY_BYTES = 64 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;
// One-time passwords: 18 random bytes, 24 base64url characters (144 bits).
const ONE_TIME_PASSWORD_BYTES = 18;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES);
  const hash = await scrypt(password, salt, HASH_BYTES, { N: COST_N, r: BLOCK_R, p: PARALLEL_P, maxmem: MAX_MEMORY_BYTES });
  return ['scrypt', COST_N, BLOCK_R, PARALLEL_P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

// Verified against when the account does not exist, so that answer takes as long as a wrong password.
const DUMMY_HASH = hashPassword(crypto.randomBytes(16).toString('hex'));

/** True when `password` matches `stored`; a missing or malformed hash never matches (but costs the same time). */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? (await DUMMY_HASH)).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: MAX_MEMORY_BYTES });
  return stored !== null && stored !== undefined && crypto.timingSafeEqual(actual, expected);
}

export function oneTimePassword(): string {
  return crypto.randomBytes(ONE_TIME_PASSWORD_BYTES).toString('base64url');
}

/** Why a new password is not acceptable, or undefined. */
export function passwordProblem(password: unknown): string | undefined {
  if (typeof password !== 'string') return 'the new password must be a string';
  // Characters as a person counts them (code points): "😀" is one, not two UTF-16 units.
  if ([...password].length < MIN_PASSWORD_LENGTH) return `the new password must be at least ${MIN_PASSWORD_LENGTH} characters long`;
  if (password.length > MAX_PASSWORD_LENGTH) return `the new password must be at most ${MAX_PASSWORD_LENGTH} characters long`;
  return undefined;
}
