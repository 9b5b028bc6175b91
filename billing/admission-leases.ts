// Admission leases: for a busy key, this process takes a few admissions ahead of its requests in
// the same database statement that admits the waiting ones, and spends them from memory. That
// keeps PostgreSQL off the path of most requests of a busy key while the counters in PostgreSQL
// (which include every leased admission) keep the limits global across processes.
//
// Bounds: a lease lives at most 1.25 LEASE_MS and holds at most about LEASE_MS worth of the key's
// recent request rate (and only from the first half of the minute's limit, decided in SQL);
// unused admissions go back while their window lasts. A key without recent demand gets no lease,
// so a quiet key is counted request by request exactly as before. Revocation, expiry and tier
// changes drop the lease at once (NOTIFY api_key_changed), and expires_at is checked here too.

import type { Balance } from './ledger.ts';

export interface KeyInfo {
  keyId: number;
  tier: string;
  credits: number;
  monthlyCredits: number;
  intentExtraction: boolean;
  createdAt: Date;
  expiresAt: Date | null;
  requestsPerMinute: number;
  /** null: no daily limit. */
  requestsPerDay: number | null;
}

interface Lease {
  info: KeyInfo;
  /** SHA-256 of the key, as stored (for hand-backs and NOTIFY). */
  hash: Buffer;
  hex: string;
  /** Start of the minute window the lease belongs to (epoch ms). */
  minuteWindow: number;
  /** The key's counters in PostgreSQL after the grant, leased admissions included. */
  minuteCount: number;
  dayCount: number;
  /** Admissions left to spend, in all: the sum of `spare`. */
  unused: number;
  /** Where they sit in the key's counters, oldest first: each grant leases the positions just below its counters. */
  spare: Spare[];
  grantedAt: number;
  validUntil: number;
  /** Requests of this key since the grant (from the lease or from PostgreSQL). */
  demand: number;
  /** The newest balance a ledger statement of this process returned for the key, and when it arrived (the windows' clock, as grantSentAt). */
  noted: Noted | undefined;
  /** When the admit_keys statement of the grant was sent: its balance was read after this. */
  grantSentAt: number;
  /** The balance the grant read. */
  grantCredits: number;
}

/** `left` leased admissions at the counter positions just up to the tops (top - left + 1 .. top). */
interface Spare {
  minuteTop: number;
  dayTop: number;
  left: number;
}

interface Noted extends Balance {
  receivedAt: number;
}

/** What the next admit_keys call asks for one key. */
export interface LeaseAsk {
  extra: number;
  returned: number;
  returnedMinute: Date;
}

/** One granted or refused request's view of its key's counters. */
export interface Counted {
  info: KeyInfo;
  minuteCount: number;
  dayCount: number;
}

// Leases are found by the API key as the client sent it, so a request served from a lease costs
// no hashing; the key stays in this process's memory, as it does while any request is handled.
export interface LeaseTable {
  /** Spends one leased admission of the key, if it holds a valid one. */
  take(key: string, now: number): Counted | undefined;
  /** True if take() would succeed now. */
  holds(key: string, now: number): boolean;
  /**
   * The key's details if this process admitted it within the last minute, it has not been
   * dropped (revoked, expired, changed) and its last known counters leave room in its windows:
   * a key that will most likely be admitted. Spends nothing.
   */
  peek(key: string, now: number): KeyInfo | undefined;
  /** The extra admissions to ask for a key that `wanted` requests are waiting on; hands back what is left of an old lease. */
  ask(key: string, wanted: number, now: number): LeaseAsk;
  /**
   * Records the grant of admit_keys; returns the counters each granted request sees, in order,
   * and the unused admissions of a replaced lease of an older window, to hand back.
   */
  settle(key: string, hash: Buffer, grant: Grant, now: number): { counted: Counted[]; handBack: LeaseAsk };
  /** Forgets a key. */
  drop(key: string): void;
  /** Forgets a key by its hash (hex): NOTIFY api_key_changed on revocation, expiry or tier change. */
  dropHash(hex: string): void;
  /**
   * Keeps the balance shown by later responses of this process current: the newest balance a
   * ledger statement returned (by version), unless a grant read the balance after it arrived.
   */
  noteCredits(keyId: number, balance: Balance, now: number): void;
  /** Leases left unused well past their lapse, with admissions left in their day: to hand back. Forgets long-idle keys. */
  lapsed(now: number): { key: string; hash: Buffer; ask: LeaseAsk }[];
  /** Every unused leased admission, taken out of its lease: to hand back now (shutdown). */
  unusedAll(): { key: string; hash: Buffer; ask: LeaseAsk }[];
}

export interface Grant {
  info: KeyInfo;
  minuteWindow: Date;
  minuteCount: number;
  dayCount: number;
  granted: number;
  leased: number;
  /** When admit_keys was sent, on the windows' clock (window-clock.ts): the balance in `info` was read after this. */
  sentAt: number;
}

// 10 s rather than 5: a key used about once a second then needs PostgreSQL for one request in ten
// instead of one in five. Alternating /me runs (8,000 pro keys round-robin, 64 connections): 8,891
// and 8,983 req/s vs 6,898 and 6,387, with admit_keys at 0.06-0.09 cores vs 0.17-0.19.
export const LEASE_MS = 10_000;
const MAX_LEASE = 64;
const FORGET_AFTER_MS = 60_000;
const DAY_MS = 86_400_000;
const NO_RETURN: LeaseAsk = { extra: 0, returned: 0, returnedMinute: new Date(0) };

/**
 * Sets the balance the lease's admissions show (in place: admissions copy it, admissionOf): the
 * newest a ledger statement returned, unless the grant was sent after that arrived (then the
 * grant's read is the newer). Statements that overlap may have read in either order; the noted
 * one is shown then, and so a balance the ledger held, replaced by the next newer one.
 */
function showBalance(lease: Lease): void {
  const noted = lease.noted;
  lease.info.credits = noted && lease.grantSentAt <= noted.receivedAt ? noted.credits : lease.grantCredits;
}

export function createLeaseTable(options: { leaseMs?: number; maxLease?: number } = {}): LeaseTable {
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const maxLease = options.maxLease ?? MAX_LEASE;
  const leases = new Map<string, Lease>();
  const keyByKeyId = new Map<number, string>();
  const keyByHex = new Map<string, string>();

  function valid(lease: Lease, now: number): boolean {
    return now < lease.validUntil && now - lease.minuteWindow < 60_000;
  }

  /** The key's lease if it has an admission to spend now. */
  function spendable(key: string, now: number): Lease | undefined {
    const lease = leases.get(key);
    return lease && lease.unused > 0 && valid(lease, now) ? lease : undefined;
  }

  function drop(key: string) {
    const lease = leases.get(key);
    if (!lease) return;
    keyByKeyId.delete(lease.info.keyId);
    keyByHex.delete(lease.hex);
    leases.delete(key);
  }

  function handBack(lease: Lease): LeaseAsk {
    const returned = lease.unused;
    lease.unused = 0;
    lease.spare = [];
    return returned > 0 ? { extra: 0, returned, returnedMinute: new Date(lease.minuteWindow) } : NO_RETURN;
  }

  return {
    take(key, now) {
      const lease = spendable(key, now);
      if (!lease) return undefined;
      // The lowest position left: each request is told the count it was admitted at, once.
      const spare = lease.spare[0];
      spare.left -= 1;
      if (spare.left === 0) lease.spare.shift();
      lease.unused -= 1;
      lease.demand += 1;
      return { info: lease.info, minuteCount: spare.minuteTop - spare.left, dayCount: spare.dayTop - spare.left };
    },

    holds: (key, now) => spendable(key, now) !== undefined,

    peek(key, now) {
      const lease = leases.get(key);
      if (!lease || (lease.info.expiresAt !== null && lease.info.expiresAt.getTime() <= now)) return undefined;
      const { requestsPerMinute, requestsPerDay } = lease.info;
      if (now - lease.minuteWindow < 60_000 && lease.minuteCount >= requestsPerMinute) return undefined;
      const sameDay = Math.floor(now / DAY_MS) === Math.floor(lease.minuteWindow / DAY_MS);
      if (requestsPerDay !== null && sameDay && lease.dayCount >= requestsPerDay) return undefined;
      return lease.info;
    },

    ask(key, wanted, now) {
      const lease = leases.get(key);
      if (!lease) return NO_RETURN;
      const back = handBack(lease);
      // Enough for the next leaseMs at the rate seen since the last grant (none for a quiet key).
      const rate = (lease.demand + wanted) / Math.max(now - lease.grantedAt, 50);
      return { ...back, extra: Math.min(maxLease, Math.floor(rate * leaseMs)) };
    },

    settle(key, hash, grant, now) {
      const minuteWindow = grant.minuteWindow.getTime();
      const expiresAt = grant.info.expiresAt?.getTime() ?? Infinity;
      // Concurrent admission batches of one key each end in a grant. Admissions still unused in
      // the lease this grant replaces stay spendable (same window) or go back (an older window):
      // dropped, they would stay counted in PostgreSQL and turn the key's own requests away.
      const replaced = leases.get(key);
      const sameWindow = replaced !== undefined && replaced.minuteWindow === minuteWindow;
      const kept = sameWindow ? replaced.spare : [];
      const stale = replaced && !sameWindow ? handBack(replaced) : NO_RETURN;
      const lease: Lease = {
        info: grant.info,
        hash,
        hex: hash.toString('hex'),
        minuteWindow,
        // Grants may settle out of order: the counters are the highest PostgreSQL reported.
        minuteCount: sameWindow ? Math.max(grant.minuteCount, replaced.minuteCount) : grant.minuteCount,
        dayCount: sameWindow ? Math.max(grant.dayCount, replaced.dayCount) : grant.dayCount,
        unused: grant.leased + kept.reduce((sum, spare) => sum + spare.left, 0),
        spare: grant.leased > 0 ? [...kept, { minuteTop: grant.minuteCount, dayTop: grant.dayCount, left: grant.leased }] : kept,
        grantedAt: now,
        noted: replaced?.noted,
        grantSentAt: grant.sentAt,
        grantCredits: grant.info.credits,
        // Jittered, so the leases of keys that started together do not all lapse together and
        // send their renewals to PostgreSQL in waves.
        validUntil: Math.min(now + leaseMs * (0.75 + Math.random() / 2), expiresAt),
        demand: 0,
      };
      showBalance(lease);
      leases.set(key, lease);
      keyByKeyId.set(grant.info.keyId, key);
      keyByHex.set(lease.hex, key);
      const counted: Counted[] = [];
      // Request i of the grant saw the counters before the later ones and before the lease.
      for (let i = 1; i <= grant.granted; i++) {
        const ahead = grant.granted - i + grant.leased;
        counted.push({ info: grant.info, minuteCount: grant.minuteCount - ahead, dayCount: grant.dayCount - ahead });
      }
      return { counted, handBack: stale };
    },

    drop,

    dropHash(hex) {
      const key = keyByHex.get(hex);
      if (key !== undefined) drop(key);
    },

    noteCredits(keyId, balance, now) {
      const key = keyByKeyId.get(keyId);
      const lease = key === undefined ? undefined : leases.get(key);
      if (!lease || (lease.noted && lease.noted.version >= balance.version)) return;
      lease.noted = { credits: balance.credits, version: balance.version, receivedAt: now };
      showBalance(lease);
    },

    lapsed(now) {
      const out: { key: string; hash: Buffer; ask: LeaseAsk }[] = [];
      for (const [key, lease] of leases) {
        // An active key hands its leftovers back with its next grant; only a key that stayed
        // quiet for another leaseMs after its lease lapsed gets a hand-back of its own.
        if (now - lease.grantedAt < 2 * leaseMs) continue;
        if (lease.unused > 0) out.push({ key, hash: lease.hash, ask: handBack(lease) });
        else if (now - lease.grantedAt > FORGET_AFTER_MS) drop(key);
      }
      return out;
    },

    unusedAll() {
      const out: { key: string; hash: Buffer; ask: LeaseAsk }[] = [];
      for (const [key, lease] of leases) if (lease.unused > 0) out.push({ key, hash: lease.hash, ask: handBack(lease) });
      return out;
    },
  };
}
