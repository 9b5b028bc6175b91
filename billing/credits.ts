// Credits: reserve before the work, commit before the success status is written, refund on any
// failure. The reservation row is the single token of a pending charge: committing or refunding
// deletes it, so neither can happen twice, and rows left behind by a crash are refunded at start.
import type { Sql } from '../db/connect.ts';
import type { License } from './licenses.ts';
import { createStatementBatcher } from '../db/statement-batcher.ts';

export interface Reservation {
  id: number;
  keyId: number;
  amount: number;
  /** Balance right after this reservation was taken. */
  creditsRemaining: number;
}

/** Takes `amount` credits from the key, or returns undefined when the balance is too low. */
export async function reserveCredits(sql: Sql, keyId: number, amount: number): Promise<Reservation | undefined> {
  const [row] = await sql`
    WITH taken AS (
      UPDATE api_keys SET credits = credits - ${amount}
       WHERE id = ${keyId} AND credits >= ${amount}
       RETURNING id, credits)
    INSERT INTO credit_reservations (key_id, amount)
    SELECT id, ${amount} FROM taken
    RETURNING id, (SELECT credits FROM taken) AS credits`;
  if (!row) return undefined;
  return { id: row.id, keyId, amount, creditsRemaining: row.credits };
}

/**
 * Makes the charge final. Returns false if the reservation was already settled. A license, when
 * given, is written by the same statement: no charged download without its license, nor the reverse.
 */
export async function commitCredits(sql: Sql, reservation: Reservation, license?: License, requestId = ''): Promise<boolean> {
  if (!license) {
    const rows = await sql`DELETE FROM credit_reservations WHERE id = ${reservation.id} RETURNING id`;
    return rows.length === 1;
  }
  const rows = await sql`
    WITH settled AS (DELETE FROM credit_reservations WHERE id = ${reservation.id} RETURNING key_id)
    INSERT INTO licenses (key_id, track_id, duration_seconds, hit_point_seconds, clip_start_seconds, request_id)
    SELECT key_id, ${license.trackId}, ${license.durationSeconds}, ${license.hitPointSeconds}, ${license.clipStartSeconds}, ${requestId} FROM settled
    RETURNING id`;
  return rows.length === 1;
}

export interface Charge {
  keyId: number;
  amount: number;
  license: License | undefined;
  requestId: string;
}

/**
 * Takes credits and writes licenses in one statement for a whole batch of concurrent charges
 * (charge_credits in the migrations): for replies that already exist (cached clips), where
 * nothing can fail between a reservation and its commit. The commit is synchronous, one WAL
 * flush per batch. `charge` resolves with the new balance, or undefined when the balance is too
 * low (nothing taken, no license).
 */
export interface Charger {
  charge(charge: Charge): Promise<number | undefined>;
}

export function createCharger(sql: Sql): Charger {
  const batcher = createStatementBatcher<Charge, number | undefined>(async (charges) => {
    const rows = await sql`
      SELECT * FROM charge_credits(
        ${sql.array(charges.map((c) => c.keyId), INT8_ARRAY)}, ${sql.array(charges.map((c) => c.amount), INT4_ARRAY)},
        ${sql.array(charges.map((c) => c.license?.trackId ?? null) as any, TEXT_ARRAY)},
        ${sql.array(charges.map((c) => c.license?.durationSeconds ?? null) as any, FLOAT8_ARRAY)},
        ${sql.array(charges.map((c) => c.license?.hitPointSeconds ?? null) as any, FLOAT8_ARRAY)},
        ${sql.array(charges.map((c) => c.license?.clipStartSeconds ?? null) as any, FLOAT8_ARRAY)},
        ${sql.array(charges.map((c) => c.requestId), TEXT_ARRAY)})`;
    const balances: (number | undefined)[] = charges.map(() => undefined);
    for (const row of rows) balances[row.ord - 1] = row.credits;
    return balances;
  });
  return { charge: (charge) => batcher.submit(charge) };
}

// PostgreSQL type oids of the array parameters.
const INT8_ARRAY = 1016;
const INT4_ARRAY = 1007;
const TEXT_ARRAY = 1009;
const FLOAT8_ARRAY = 1022;

/** Returns the reserved credits; returns the new balance, or undefined if already settled. */
export async function refundCredits(sql: Sql, reservation: Reservation): Promise<number | undefined> {
  const [row] = await sql`
    WITH settled AS (DELETE FROM credit_reservations WHERE id = ${reservation.id} RETURNING key_id, amount)
    UPDATE api_keys k SET credits = k.credits + settled.amount
      FROM settled WHERE k.id = settled.key_id
    RETURNING k.credits`;
  return row?.credits;
}

/**
 * Gives back a charge that was committed for a response that never went out: the client went away
 * while the commit was in flight, the answer failed, or the key was refused after an early charge
 * (server/http/endpoint.ts). Called at most once per request, by the one code path that saw both
 * the commit and the failure. Returns the key's balance after.
 */
export async function returnCommittedCredits(sql: Sql, reservation: Pick<Reservation, 'keyId' | 'amount'>, licenseRequestId?: string): Promise<number | undefined> {
  return sql.begin(async (tx) => {
    const [row] = await tx`UPDATE api_keys SET credits = credits + ${reservation.amount} WHERE id = ${reservation.keyId} RETURNING credits`;
    if (licenseRequestId) await tx`DELETE FROM licenses WHERE request_id = ${licenseRequestId}`;
    return row?.credits as number | undefined;
  });
}

/** Refunds reservations older than `olderThanSeconds`: left behind by a process that died mid-request. */
export async function refundAbandonedReservations(sql: Sql, olderThanSeconds: number): Promise<number> {
  const rows = await sql`
    WITH settled AS (
      DELETE FROM credit_reservations
       WHERE created_at < now() - make_interval(secs => ${olderThanSeconds})
       RETURNING key_id, amount),
    per_key AS (SELECT key_id, sum(amount)::integer AS amount FROM settled GROUP BY key_id)
    UPDATE api_keys k SET credits = k.credits + per_key.amount
      FROM per_key WHERE k.id = per_key.key_id
    RETURNING k.id`;
  return rows.length;
}
