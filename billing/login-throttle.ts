// Sign-in throttling: failed attempts are counted per account (by the email typed, whether or not
// an account has it, so the answer tells nothing about which emails exist) and per client address,
// in PostgreSQL so the limits hold across server processes. Past the free attempts each subject
// waits before its next one, the wait doubling with every further failure.
import type { Sql } from '../db/connect.ts';

/** Wrong passwords an email may take before it has to wait. */
export const ACCOUNT_FREE_FAILURES = 5;
/** Failures from one address (over any emails) before it has to wait: a shared NAT, several people. */
export const ADDRESS_FREE_FAILURES = 20;
const FIRST_WAIT_SECONDS = 30;
const MAX_WAIT_SECONDS = 15 * 60;
/** A streak of failures is forgotten this long after its last one. */
const FORGET_AFTER_SECONDS = 60 * 60;

export interface Subject {
  subject: string;
  freeFailures: number;
}

/**
 * The subjects an attempt counts against. The email is lowercased by PostgreSQL's lower() where
 * the subject is used, as the account lookup (accounts.ts) lowercases it: JavaScript's
 * toLowerCase differs on some letters ("İ" is "i̇" there, "i" in PostgreSQL), and every spelling
 * that reaches an account must share its count.
 */
export function loginSubjects(email: string, address: string): Subject[] {
  return [
    { subject: `account:${email.trim()}`, freeFailures: ACCOUNT_FREE_FAILURES },
    { subject: `address:${address}`, freeFailures: ADDRESS_FREE_FAILURES },
  ];
}

/**
 * Takes an attempt for every subject: counted as a failure now, taken back by `succeeded`.
 * Returns 0, or the seconds to wait when a subject is still waiting after its last failure
 * (nothing is counted then). Each subject's row is made if missing and locked before it is read,
 * always in the order given, so parallel guesses are checked one after another, each seeing the
 * failures counted before it.
 */
export async function takeAttempt(sql: Sql, subjects: Subject[]): Promise<number> {
  return sql.begin(async (tx) => {
    let wait = 0;
    for (const s of subjects) {
      await tx`INSERT INTO login_failures (subject, failures, last_failed_at) VALUES (lower(${s.subject}), 0, '-infinity') ON CONFLICT (subject) DO NOTHING`;
      const [row] = await tx`
        SELECT CASE WHEN failures >= ${s.freeFailures} AND last_failed_at > now() - make_interval(secs => ${FORGET_AFTER_SECONDS})
                    THEN ceil(extract(epoch FROM last_failed_at + make_interval(secs => least(${MAX_WAIT_SECONDS}::float8,
                           ${FIRST_WAIT_SECONDS}::float8 * 2 ^ (failures - ${s.freeFailures}))) - now()))::integer
                    ELSE 0 END AS wait
          FROM login_failures WHERE subject = lower(${s.subject}) FOR UPDATE`;
      wait = Math.max(wait, row.wait);
    }
    if (wait > 0) return wait;
    for (const s of subjects) {
      await tx`
        UPDATE login_failures AS f
           SET failures = CASE WHEN f.last_failed_at > now() - make_interval(secs => ${FORGET_AFTER_SECONDS}) THEN f.failures + 1 ELSE 1 END,
               last_failed_at = now()
         WHERE subject = lower(${s.subject})`;
    }
    return 0;
  });
}

/** The attempt was right: the account's streak ends, and the address's count loses this attempt. */
export async function succeeded(sql: Sql, subjects: Subject[]): Promise<void> {
  const [account, address] = subjects;
  await sql`DELETE FROM login_failures WHERE subject = lower(${account.subject})`;
  await sql`UPDATE login_failures SET failures = greatest(0, failures - 1) WHERE subject = lower(${address.subject})`;
}
