// Idempotency-Key (Stripe's semantics, design.md "Billing"): a client that lost a reply (a crash,
// a dropped connection) retries with the same key and gets the first reply, charged once.
//   same key + same request within 24 h: the stored reply, no second charge
//   same key + a different request: refused ('idempotency_key_reused')
//   the first request still being worked on: refused ('idempotency_key_in_flight')
// Only a charged (2xx) reply is kept; a request that fails releases its key, so its retry runs
// afresh (our failures cost nothing, so re-running them is harmless).
import crypto from 'node:crypto';
import type { Sql } from '../db/connect.ts';
import type { HeldKey, StoredReply } from './ledger.ts';
import { Refusal } from './refusal.ts';
import { canonicalJson } from './canonical-json.ts';
import { createStatementBatcher } from '../db/statement-batcher.ts';
import { BYTEA_ARRAY, INT4_ARRAY, INT8_ARRAY, TEXT_ARRAY } from '../db/array-types.ts';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const IDEMPOTENCY_KEY_HOURS = 24;
// Visible ASCII only: the key is echoed in messages and compared byte for byte.
const KEY_PATTERN = /^[\x21-\x7e]+$/;

/** The key as sent, checked; undefined when the header is absent. Throws an 'invalid_idempotency_key' Refusal. */
export function idempotencyKeyOf(header: string): string | undefined {
  if (header === '') return undefined;
  if (header.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new Refusal('invalid_idempotency_key', `Idempotency-Key is ${header.length} characters; at most ${MAX_IDEMPOTENCY_KEY_LENGTH} are allowed`);
  }
  if (!KEY_PATTERN.test(header)) throw new Refusal('invalid_idempotency_key', 'Idempotency-Key must be visible ASCII characters without spaces (a UUID is a good choice)');
  return header;
}

/** SHA-256 of the endpoint and the request body with its object keys sorted (key order is not a difference). */
export function requestFingerprint(endpoint: string, body: unknown): Buffer {
  return crypto.createHash('sha256').update(endpoint).update('\n').update(canonicalJson(body)).digest();
}

/** A replay names the first request: what it granted (a download's license) is named after it. */
export type Claim = { kind: 'claimed' } | { kind: 'replay'; reply: StoredReply; requestId: string };

/**
 * What the first request with the key left, for a request whose claim found the key taken: its
 * reply to replay, or a refusal (in flight, or used for a different request). Undefined when the
 * key was released in between (the first request failed): the key may be claimed again.
 */
async function firstRequestOf(sql: Sql, keyId: number, held: HeldKey, fingerprint: Buffer): Promise<Claim | undefined> {
  const [first] = await sql`
    SELECT fingerprint, request_id, status, content_type, body FROM idempotency_keys WHERE key_id = ${keyId} AND idempotency_key = ${held.key}`;
  if (!first) return undefined;
  if (!fingerprint.equals(first.fingerprint)) {
    throw new Refusal('idempotency_key_reused', `Idempotency-Key "${held.key}" was used for a different request in the last ${IDEMPOTENCY_KEY_HOURS} h; use a new key for a new request`);
  }
  if (first.status === null) {
    throw new Refusal('idempotency_key_in_flight', `a request with Idempotency-Key "${held.key}" is still in progress; retry after it has finished`);
  }
  return { kind: 'replay', reply: { status: first.status, contentType: first.content_type, body: first.body }, requestId: first.request_id };
}

export interface Claimer {
  /**
   * Claims the key for this request, or finds what the first request with it left (firstRequestOf).
   * A claim older than 24 h is taken over as if new.
   */
  claim(keyId: number, held: HeldKey, fingerprint: Buffer, processId: number): Promise<Claim>;
}

interface ClaimItem {
  keyId: number;
  held: HeldKey;
  fingerprint: Buffer;
  processId: number;
}

/**
 * Claims in batches: the claims of concurrent requests, each a new key as a busy client's mostly
 * are, are one INSERT for the batch (one round trip, not one each). A second claim of one key
 * within a batch is left out of it (one statement may not insert a row and then update it) and
 * finds the key taken, as a claim of a key already used does.
 */
export function createClaimer(sql: Sql): Claimer {
  const batcher = createStatementBatcher<ClaimItem, boolean>(async (items) => {
    const seen = new Set<string>();
    const first = items.filter((item) => {
      const id = `${item.keyId}\n${item.held.key}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    const rows = await sql`
      INSERT INTO idempotency_keys AS i (key_id, idempotency_key, fingerprint, request_id, process_id)
      SELECT * FROM unnest(
        ${sql.array(first.map((c) => c.keyId), INT8_ARRAY)}::int8[], ${sql.array(first.map((c) => c.held.key), TEXT_ARRAY)}::text[],
        ${sql.array(first.map((c) => c.fingerprint) as any, BYTEA_ARRAY)}::bytea[], ${sql.array(first.map((c) => c.held.requestId), TEXT_ARRAY)}::text[],
        ${sql.array(first.map((c) => c.processId), INT4_ARRAY)}::int4[])
      ON CONFLICT (key_id, idempotency_key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, request_id = EXCLUDED.request_id, process_id = EXCLUDED.process_id,
             created_at = now(), status = NULL, content_type = NULL, body = NULL
       WHERE i.created_at < now() - make_interval(hours => ${IDEMPOTENCY_KEY_HOURS})
      RETURNING request_id`;
    const claimed = new Set(rows.map((row) => row.request_id as string));
    return items.map((item) => claimed.has(item.held.requestId));
  });
  return {
    async claim(keyId, held, fingerprint, processId) {
      for (let attempt = 0; attempt < 2; attempt++) {
        if (await batcher.submit({ keyId, held, fingerprint, processId })) return { kind: 'claimed' };
        const first = await firstRequestOf(sql, keyId, held, fingerprint);
        if (first) return first;
      }
      throw new Refusal('idempotency_key_in_flight', `Idempotency-Key "${held.key}" is changing hands; retry`);
    },
  };
}

/** Releases a claim that was not completed (the request was not charged). */
export async function releaseIdempotencyKey(sql: Sql, keyId: number, held: HeldKey): Promise<void> {
  await sql`
    DELETE FROM idempotency_keys
     WHERE key_id = ${keyId} AND idempotency_key = ${held.key} AND request_id = ${held.requestId} AND status IS NULL`;
}

/** Deletes keys past their 24 h. */
export async function pruneIdempotencyKeys(sql: Sql): Promise<number> {
  const rows = await sql`
    DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => ${IDEMPOTENCY_KEY_HOURS}) RETURNING 1`;
  return rows.length;
}
