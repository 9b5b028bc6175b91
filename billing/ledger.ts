// The credit ledger: every statement that moves credits. A paid request's charge, its usage record,
// its license (downloads) and its Idempotency-Key reply are written by one statement, so a charged
// credit always has its usage record. Two ways to charge:
//   - a reply that exists or is being worked out: one batched charge_requests() statement;
//   - work that writes or can fail late: reserve, work, then commit or refund.
// A reservation row is the single token of a pending charge, a usage record the token of a final
// one: settling deletes the token, so nothing is settled or given back twice.
import type { Sql } from '../db/connect.ts';
import type { License } from './licenses.ts';
import { createStatementBatcher } from '../db/statement-batcher.ts';
import { FLOAT4_ARRAY, FLOAT8_ARRAY, INT4_ARRAY, INT8_ARRAY, TEXT_ARRAY, TIMESTAMPTZ_ARRAY } from '../db/array-types.ts';

/** What a paid request's usage record says, written with its charge. */
export interface UsageFacts {
  keyId: number;
  endpoint: string;
  requestedAt: Date;
  responseMs: number;
  requestId: string;
}

export interface Charge extends UsageFacts {
  amount: number;
  license: License | undefined;
  /** The Idempotency-Key the request holds: the charge completes it (status 200, no body yet). */
  idempotencyKey: string | undefined;
}

/**
 * A key's balance as one statement left it, with its version (api_keys.credits_version, stepped
 * by every change of the balance): of two balances of a key, the higher version is the newer.
 */
export interface Balance {
  credits: number;
  version: number;
}

export interface Charged extends Balance {
  /** `credits`: the key's balance right after this charge. */
  usageId: number;
}

export interface Reservation {
  id: number;
  keyId: number;
  amount: number;
  /** Balance right after this reservation was taken. */
  creditsRemaining: number;
  creditsVersion: number;
}

/** An Idempotency-Key held by a request, released if the request is not charged. */
export interface HeldKey {
  key: string;
  requestId: string;
}

/** The reply stored under an Idempotency-Key (a body only for replies that are not re-made). */
export interface StoredReply {
  status: number;
  contentType: string | null;
  body: string | null;
}

export interface Charger {
  /** Resolves with the balance and usage record, or undefined when the balance is too low (nothing written). */
  charge(charge: Charge): Promise<Charged | undefined>;
}

/** Charges in batches: one statement and one synchronous commit (one WAL flush) per batch. */
export function createCharger(sql: Sql): Charger {
  const batcher = createStatementBatcher<Charge, Charged | undefined>(async (charges) => {
    const rows = await sql`
      SELECT * FROM charge_requests(
        ${sql.array(charges.map((c) => c.keyId), INT8_ARRAY)}, ${sql.array(charges.map((c) => c.amount), INT4_ARRAY)},
        ${sql.array(charges.map((c) => c.license?.trackId ?? null) as any, TEXT_ARRAY)},
        ${sql.array(charges.map((c) => c.license?.durationSeconds ?? null) as any, FLOAT8_ARRAY)},
        ${sql.array(charges.map((c) => c.license?.hitPointSeconds ?? null) as any, FLOAT8_ARRAY)},
        ${sql.array(charges.map((c) => c.license?.clipStartSeconds ?? null) as any, FLOAT8_ARRAY)},
        ${sql.array(charges.map((c) => c.requestId), TEXT_ARRAY)},
        ${sql.array(charges.map((c) => c.endpoint), TEXT_ARRAY)},
        ${sql.array(charges.map((c) => c.requestedAt.toISOString()) as any, TIMESTAMPTZ_ARRAY)},
        ${sql.array(charges.map((c) => c.responseMs), FLOAT4_ARRAY)},
        ${sql.array(charges.map((c) => c.idempotencyKey ?? null) as any, TEXT_ARRAY)})`;
    const results: (Charged | undefined)[] = charges.map(() => undefined);
    for (const row of rows) results[row.ord - 1] = { credits: row.credits, version: row.credits_version, usageId: row.usage_id };
    return results;
  });
  return { charge: (charge) => batcher.submit(charge) };
}

/** The key's balance now, with its version. */
export async function readBalance(sql: Sql, keyId: number): Promise<Balance> {
  const [row] = await sql`SELECT credits, credits_version FROM api_keys WHERE id = ${keyId}`;
  return { credits: row.credits, version: row.credits_version };
}

/** Takes `amount` credits from the key for this process, or returns undefined when the balance is too low. */
export async function reserveCredits(sql: Sql, keyId: number, amount: number, processId: number): Promise<Reservation | undefined> {
  const [row] = await sql`
    WITH taken AS (
      UPDATE api_keys SET credits = credits - ${amount}
       WHERE id = ${keyId} AND credits >= ${amount}
       RETURNING id, credits, credits_version)
    INSERT INTO credit_reservations (key_id, amount, process_id)
    SELECT id, ${amount}, ${processId} FROM taken
    RETURNING id, (SELECT credits FROM taken) AS credits, (SELECT credits_version FROM taken) AS credits_version`;
  if (!row) return undefined;
  return { id: row.id, keyId, amount, creditsRemaining: row.credits, creditsVersion: row.credits_version };
}

/**
 * Makes a reservation final, in one statement with its usage record, its license and the reply
 * stored under its Idempotency-Key. Returns the usage record's id, or undefined if the reservation
 * was already settled (refunded by the sweep of a process thought dead): nothing is written then.
 */
export async function commitReservation(
  sql: Sql, reservation: Reservation, usage: UsageFacts, status: number,
  license: License | undefined, stored: { held: HeldKey; reply: StoredReply } | undefined,
): Promise<number | undefined> {
  const [row] = await sql`
    WITH settled AS (DELETE FROM credit_reservations WHERE id = ${reservation.id} RETURNING key_id, amount),
    licensed AS (
      INSERT INTO licenses (key_id, track_id, duration_seconds, hit_point_seconds, clip_start_seconds, request_id)
      SELECT key_id, ${license?.trackId ?? null}::text, ${license?.durationSeconds ?? null}::float8,
             ${license?.hitPointSeconds ?? null}::float8, ${license?.clipStartSeconds ?? null}::float8, ${usage.requestId}
        FROM settled WHERE ${license?.trackId ?? null}::text IS NOT NULL),
    completed AS (
      UPDATE idempotency_keys i
         SET status = ${stored?.reply.status ?? null}::smallint, content_type = ${stored?.reply.contentType ?? null}::text,
             body = ${stored?.reply.body ?? null}::text, process_id = NULL
        FROM settled s
       WHERE i.key_id = s.key_id AND i.idempotency_key = ${stored?.held.key ?? null}::text AND i.request_id = ${usage.requestId})
    INSERT INTO usage_records (key_id, requested_at, endpoint, status_code, credits_consumed, response_time_ms, request_id)
    SELECT key_id, ${usage.requestedAt}, ${usage.endpoint}, ${status}, amount, ${usage.responseMs}, ${usage.requestId} FROM settled
    RETURNING id`;
  return row?.id;
}

/** Stores the body of a reply whose batched charge completed its Idempotency-Key (until then a replay re-makes it). */
export async function storeReplyBody(sql: Sql, keyId: number, held: HeldKey, reply: StoredReply): Promise<void> {
  await sql`
    UPDATE idempotency_keys SET content_type = ${reply.contentType}, body = ${reply.body}
     WHERE key_id = ${keyId} AND idempotency_key = ${held.key} AND request_id = ${held.requestId}`;
}

/** Returns reserved credits and releases the request's Idempotency-Key; returns the new balance, or undefined if already settled. */
export async function refundReservation(sql: Sql, reservation: Reservation, held: HeldKey | undefined): Promise<Balance | undefined> {
  const [row] = await sql`
    WITH settled AS (DELETE FROM credit_reservations WHERE id = ${reservation.id} RETURNING key_id, amount),
    released AS (
      DELETE FROM idempotency_keys i USING settled s
       WHERE i.key_id = s.key_id AND i.idempotency_key = ${held?.key ?? null}::text AND i.request_id = ${held?.requestId ?? null}::text)
    UPDATE api_keys k SET credits = k.credits + settled.amount
      FROM settled WHERE k.id = settled.key_id
    RETURNING k.credits, k.credits_version`;
  return row && { credits: row.credits, version: row.credits_version };
}

/**
 * Gives back a final charge whose reply never went out (the client left while it was charged, the
 * answer failed, or the key was refused after an early charge): deletes its usage record (the
 * token: a second call finds none and returns nothing), its license and its Idempotency-Key, and
 * returns the credits, in one statement. Returns the key's balance after, or undefined.
 */
export async function giveBackCharge(sql: Sql, usageId: number, requestId: string, held: HeldKey | undefined): Promise<Balance | undefined> {
  const [row] = await sql`
    WITH dropped AS (DELETE FROM usage_records WHERE id = ${usageId} RETURNING key_id, credits_consumed),
    unlicensed AS (DELETE FROM licenses l USING dropped d WHERE l.request_id = ${requestId} AND l.key_id = d.key_id),
    released AS (
      DELETE FROM idempotency_keys i USING dropped d
       WHERE i.key_id = d.key_id AND i.idempotency_key = ${held?.key ?? null}::text AND i.request_id = ${requestId})
    UPDATE api_keys a SET credits = a.credits + d.credits_consumed FROM dropped d WHERE a.id = d.key_id
    RETURNING a.credits, a.credits_version`;
  return row && { credits: row.credits, version: row.credits_version };
}
