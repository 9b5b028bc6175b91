// One request's bill: the one object the request pipeline charges through (server/http/pipeline.ts).
// It remembers what this request holds in the ledger (a batched charge, a reservation, a final
// charge's usage record, a claimed Idempotency-Key) so each can be settled exactly once.
import type { Sql } from '../db/connect.ts';
import type { License } from './licenses.ts';
import {
  commitReservation, giveBackCharge, readBalance, refundReservation, reserveCredits, storeReplyBody,
  type Balance, type Charged, type Charger, type HeldKey, type Reservation, type StoredReply, type UsageFacts,
} from './ledger.ts';
import { releaseIdempotencyKey, type Claim, type Claimer } from './idempotency.ts';
import type { SettleLater } from './settle-later.ts';

export interface LedgerDeps {
  /** Final charges (synchronous commit). */
  sql: Sql;
  /** Reservations, refunds and claims (see Database.relaxedSql). */
  relaxedSql: Sql;
  charger: Charger;
  /** Idempotency-Key claims (on relaxedSql). */
  claimer: Claimer;
  processId: number;
  /** Where a refund, give-back or release that failed is retried. */
  later: SettleLater;
}

export interface BillFacts {
  endpoint: string;
  /** Credits a success costs. */
  cost: number;
  requestId: string;
  requestedAt: Date;
  /** performance.now() when the request arrived. */
  startedAt: number;
}

export interface Bill {
  /** The key being billed (set once the request's key is known). */
  keyId: number;
  /** True while a batched charge is out or done. */
  readonly charging: boolean;
  readonly reserved: boolean;
  /** Credits this request has been finally charged (0 or the cost). */
  readonly amountCharged: number;
  /** The newest balance of the key any of this bill's statements returned (undefined: none returned one). */
  readonly balance: Balance | undefined;
  /**
   * Starts the one-statement charge of a reply that exists or is being worked out (once; never for
   * a free endpoint). It completes the Idempotency-Key the request holds.
   */
  charge(license?: License): void;
  /** Keeps the body of a reply whose batched charge completed the request's Idempotency-Key. */
  keepBody(reply: StoredReply): Promise<void>;
  /** The balance after the batched charge, or undefined when the balance was too low (nothing charged). */
  charged(): Promise<number | undefined>;
  /** Reserves the cost; the balance after, or undefined when too low. */
  reserve(): Promise<number | undefined>;
  /**
   * The key's balance now, read when a charge or reservation was refused as too low: what the 402
   * reports (the balance seen at admission may have been spent since by requests in parallel).
   */
  refusedBalance(): Promise<number>;
  /** Makes the reservation final with its usage record, license and stored reply; false if it was already settled. */
  commit(status: number, license: License | undefined, stored: StoredReply | undefined): Promise<boolean>;
  /** Refunds the reservation; the balance after, or undefined. */
  refund(): Promise<number | undefined>;
  /** Gives back a final charge whose reply never went out; the balance after, or undefined. */
  giveBack(): Promise<number | undefined>;
  /** Claims the request's Idempotency-Key (or finds the first request's reply, or a refusal). */
  claim(idempotencyKey: string, fingerprint: Buffer): Promise<Claim>;
  /** Releases a claimed key that was not completed by a charge. */
  release(): Promise<void>;
}

export function openBill(deps: LedgerDeps, facts: BillFacts): Bill {
  let charging: Promise<Charged | undefined> | undefined;
  let reservation: Reservation | undefined;
  let usageId: number | undefined;
  let held: HeldKey | undefined;
  let completed = false;
  let newest: Balance | undefined;

  const bill: Bill = {
    keyId: 0,
    get charging() {
      return charging !== undefined;
    },
    get reserved() {
      return reservation !== undefined;
    },
    get amountCharged() {
      return usageId === undefined ? 0 : facts.cost;
    },
    get balance() {
      return newest;
    },
    charge(license) {
      if (charging || facts.cost === 0) return;
      // Field by field: object spreads on this path showed in profiles (see admission.ts).
      charging = deps.charger.charge({
        keyId: bill.keyId, endpoint: facts.endpoint, requestedAt: facts.requestedAt, responseMs: performance.now() - facts.startedAt,
        requestId: facts.requestId, amount: facts.cost, license, idempotencyKey: held?.key,
      });
      charging.catch(() => {}); // awaited by charged(); failing before that must not end the process
    },
    async charged() {
      const result = await charging;
      if (!result) return undefined;
      usageId = result.usageId;
      completed = held !== undefined;
      newest = newerOf(newest, result);
      return result.credits;
    },
    async keepBody(reply) {
      if (held && completed) await storeReplyBody(deps.relaxedSql, bill.keyId, held, reply);
    },
    async reserve() {
      reservation = await reserveCredits(deps.relaxedSql, bill.keyId, facts.cost, deps.processId);
      if (reservation) newest = newerOf(newest, { credits: reservation.creditsRemaining, version: reservation.creditsVersion });
      return reservation?.creditsRemaining;
    },
    async refusedBalance() {
      const balance = await readBalance(deps.relaxedSql, bill.keyId);
      newest = newerOf(newest, balance);
      return balance.credits;
    },
    async commit(status, license, stored) {
      const kept = held && stored ? { held, reply: stored } : undefined;
      const committing = reservation!;
      reservation = undefined;
      try {
        usageId = await commitReservation(deps.sql, committing, usageFacts(facts, bill.keyId), status, license, kept);
      } catch (err) {
        // Committed or not, a refund settles it: it finds no reservation if the commit went through.
        deps.later.add(`request ${facts.requestId}: refund after a failed commit`, () => refundReservation(deps.relaxedSql, committing, held));
        throw err;
      }
      completed = usageId !== undefined && kept !== undefined;
      return usageId !== undefined;
    },
    async refund() {
      const refunding = reservation!;
      reservation = undefined;
      const releasing = held;
      held = undefined; // released with the refund
      const balance = await settling(deps, facts, 'refund', () => refundReservation(deps.relaxedSql, refunding, releasing));
      newest = newerOf(newest, balance);
      return balance?.credits;
    },
    async giveBack() {
      if (usageId === undefined) return undefined;
      const id = usageId;
      usageId = undefined;
      const releasing = held;
      held = undefined; // released with the charge
      completed = false;
      const balance = await settling(deps, facts, 'give-back', () => giveBackCharge(deps.sql, id, facts.requestId, releasing));
      newest = newerOf(newest, balance);
      return balance?.credits;
    },
    async claim(idempotencyKey, fingerprint) {
      const wanted = { key: idempotencyKey, requestId: facts.requestId };
      const claim = await deps.claimer.claim(bill.keyId, wanted, fingerprint, deps.processId);
      if (claim.kind === 'claimed') held = wanted;
      return claim;
    },
    async release() {
      if (!held || completed) return;
      const releasing = held;
      held = undefined;
      const keyId = bill.keyId;
      await settling(deps, facts, 'release of its Idempotency-Key', () => releaseIdempotencyKey(deps.relaxedSql, keyId, releasing));
    },
  };
  return bill;
}

/** The newer of two balances of one key (the higher version). */
export function newerOf(a: Balance | undefined, b: Balance | undefined): Balance | undefined {
  if (!a) return b;
  if (!b) return a;
  return b.version > a.version ? b : a;
}

// Module functions, not closures made per request: tsx (esbuild keepNames) names every closure
// made on a request's path with an Object.defineProperty call (see server/http/client-watch.ts).
function usageFacts(facts: BillFacts, keyId: number): UsageFacts {
  return { keyId, endpoint: facts.endpoint, requestedAt: facts.requestedAt, responseMs: performance.now() - facts.startedAt, requestId: facts.requestId };
}

/** Runs a settling statement; if it fails, it is retried later (settle-later.ts) and the failure still reported. */
async function settling<T>(deps: LedgerDeps, facts: BillFacts, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    deps.later.add(`request ${facts.requestId}: ${what}`, run);
    throw err;
  }
}
