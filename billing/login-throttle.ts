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

export function loginSubjects(email: string, address: string): Subject[] {
  return [
    { subject: `account:${email.trim().toLowerCase()}`, freeFailures: ACCOUNT_FREE_FAILURES },
    { subject: `address:${address}`, freeFailures: ADDRESS_FREE_FAILURES },
  ];
}

/**
 * Takes an attempt for every subject: counted as a failure now (so parallel guesses cannot all
 * pass the check before any is counted), taken back by `succeeded`. Returns 0, or the seconds
 * to wait when a subject is still waiting after its last failure (nothing is counted then).
 */
export async function takeAttempt(sql: Sql, subjects: Subject[]): Promise<number> {
  return sql.begin(async (tx) => {
    let wait = 0;
    for (const s of subjects) {
      const [row] = await tx`
        SELECT ceil(extract(epoch FROM last_failed_at + make_interval(secs => least(${MAX_WAIT_SECONDS}::float8,
                 ${FIRST_WAIT_SECONDS}::float8 * 2 ^ (failures - ${s.freeFailures}))) - now()))::integer AS wait
          FROM login_failures
         WHERE subject = ${s.subject} AND failures >= ${s.freeFailures}
           AND last_failed_at > now() - make_interval(secs => ${FORGET_AFTER_SECONDS})
           FOR UPDATE`;
      if (row && row.wait > 0) wait = Math.max(wait, row.wait);
    }
    if (wait > 0) return wait;
    for (const s of subjects) {
      await tx`
        INSERT INTO login_failures AS f (subject, failures, last_failed_at) VALUES (${s.subject}, 1, now())
        ON CONFLICT (subject) DO UPDATE
          SET failures = CASE WHEN f.last_failed_at > now() - make_interval(secs => ${FORGET_AFTER_SECONDS}) THEN f.failures + 1 ELSE 1 END,
              last_failed_at = now()`;
    }
    return 0;
  });
}

/** The attempt was right: the account's streak ends, and the address's count loses this attempt. */
export async function succeeded(sql: Sql, subjects: Subject[]): Promise<void> {
  const [account, address] = subjects;
  await sql`DELETE FROM login_failures WHERE subject = ${account.subject}`;
  await sql`UPDATE login_failures SET failures = greatest(0, failures - 1) WHERE subject = ${address.subject}`;
}
