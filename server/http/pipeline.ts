// The request pipeline every API endpoint runs through, one stage after another:
//   admit   the key and its rate limits (billing/admission.ts)
//   parse   the body, the Idempotency-Key and the endpoint's prepare(): their 4xx cost nothing
//   claim   the Idempotency-Key: a first request goes on; a repeat gets the first reply, uncharged
//   charge  a reply that exists (a cache hit) or is being worked out (search) in one batched
//           statement; or reserve the credits for work that writes or can fail late
//   work    the endpoint's answer or handler
//   settle  commit or refund the reservation, or give back a charge whose reply cannot go out
//   send    status, headers (limits, balance, request id) and body
//   record  the usage record of a request the ledger did not charge (a charge writes its own)
// All charging goes through the request's Bill (billing/bill.ts).
//
// One speed trick is kept because the search benchmark justifies it (p50 8-10 ms vs 11-16 ms): for
// a key this process admitted moments ago, a read-only answer and its charge start while the
// admission is being counted; they are used only if the key is admitted, otherwise the charge is
// given back, so the order of checks stays 401, 429, 400.
import { CLIENT_CLOSED } from './finish.ts';
import type { HttpResponse } from 'uWebSockets.js';
import { refusedWindow, type Admission } from '../../billing/admission.ts';
import { limitHeaders } from '../../billing/limit-headers.ts';
import { openBill, type Bill } from '../../billing/bill.ts';
import { idempotencyKeyOf, requestFingerprint } from '../../billing/idempotency.ts';
import type { StoredReply } from '../../billing/ledger.ts';
import { licenseIdOf } from '../../billing/licenses.ts';
import { Refusal } from '../../billing/refusal.ts';
import { ApiError } from './api-error.ts';
import { parseJsonObject } from './body.ts';
import type { Client } from './client-watch.ts';
import type { Endpoint, EndpointDeps, RouteContext } from './endpoint.ts';
import { errorReplyFor } from './error-reply.ts';
import { errorReply, writeHead, writeReply, type Reply } from './reply.ts';
import { streamFile } from './stream-file.ts';
import { rejectQueryParameters } from './query.ts';

export interface Incoming {
  authorization: string;
  /** The Idempotency-Key header as sent ('' when absent or the endpoint takes none). */
  idempotencyHeader: string;
  query: URLSearchParams;
  params: string[];
  body: Promise<Buffer> | undefined;
  requestId: string;
  client: Client;
  startedAt: number;
  requestedAt: Date;
}

/** Input parsed and prepared; the reply that can exist before its charge, if any. */
interface Work {
  ctx: RouteContext;
  idempotencyKey: string | undefined;
  /** A reply that exists already (Endpoint.ready). */
  cached?: Reply;
  /** Starts (once) or joins the answer's work (Endpoint.answer). */
  answering?: () => Promise<(creditsRemaining: number) => Reply>;
}

/** What the work stage made: a reply, or one made once the batched charge tells the balance. */
interface Served {
  reply?: Reply;
  afterCharge?: (creditsRemaining: number) => Reply;
  /** The balance after the reservation. */
  reservedCredits?: number;
}

/** How a request ended, for its log line and metrics. */
export interface Outcome {
  /** The status sent (499: the client went away first). */
  status: number;
  /** Credits charged and made final. */
  credits: number;
}

export async function runPipeline(deps: EndpointDeps, endpoint: Endpoint, res: HttpResponse, incoming: Incoming): Promise<Outcome> {
  const { requestId, client } = incoming;
  const bill = openBill(deps.ledger, { endpoint: endpoint.name, cost: endpoint.cost, requestId, requestedAt: incoming.requestedAt, startedAt: incoming.startedAt });
  const early = startEarly(deps, endpoint, incoming, bill);
  const admission = await admit(deps, res, incoming, bill, early);
  if ('status' in admission) return { status: client.aborted ? CLIENT_CLOSED : admission.status, credits: 0 };

  let served: Served | undefined;
  let failed: Reply | undefined;
  try {
    if (!admission.admitted) throw rateLimited(admission);
    const work = await (early?.work ?? parse(endpoint, incoming, admission, false));
    work.ctx.admission = admission; // the counted one, for anything that reads it later
    served = await chargeAndWork(endpoint, work, bill, admission.credits);
  } catch (err) {
    failed = errorReplyFor(err, requestId, deps.log);
  }
  const { reply, credits } = await settle(deps, endpoint, bill, served, failed, admission.credits, incoming);
  if (bill.balance) deps.admitter.noteBalance(admission.keyId, bill.balance);

  // No reply: the client went away and its charge was given back. It is recorded all the same.
  if (reply) {
    const headers = limitHeaders(admission, credits);
    headers['X-Request-Id'] = requestId;
    if (reply.license && bill.amountCharged > 0) headers['X-License-Id'] = licenseIdOf(requestId); // granted with the charge
    let began = true;
    try {
      began = await send(res, client, reply, headers, reply.status === 413);
    } catch (err) {
      // A reply that could not be written whole (a file gone mid-stream) is still recorded below.
      deps.log(`request ${requestId}: reply not sent whole`, err);
    }
    // The client left after the charge was made final but before its reply began: nothing reached
    // it, so the charge (its usage record and license) is given back, as one that left earlier is.
    if (!began && bill.amountCharged > 0) {
      await bill.giveBack().catch((err) => deps.log(`request ${requestId}: could not give back the charge of a reply never sent`, err));
    }
  }
  // The work's open file, sent or not (a refund or an error reply took its place).
  await served?.reply?.file?.handle.close().catch((err) => deps.log(`request ${requestId}: file not closed`, err));
  const status = client.aborted || !reply ? CLIENT_CLOSED : reply.status;
  if (bill.amountCharged === 0) {
    deps.usage.record({
      keyId: admission.keyId, requestedAt: incoming.requestedAt, endpoint: endpoint.name,
      statusCode: status, creditsConsumed: 0,
      responseTimeMs: performance.now() - incoming.startedAt, requestId,
    });
  }
  return { status, credits: bill.amountCharged };
}

interface Early {
  work: Promise<Work>;
  /** Known once the admission is counted. */
  admitted: boolean | undefined;
}

/** The early answer of a key admitted moments ago (see the top of this file), or undefined. */
function startEarly(deps: EndpointDeps, endpoint: Endpoint, incoming: Incoming, bill: Bill): Early | undefined {
  if (!endpoint.answer || incoming.idempotencyHeader !== '') return undefined;
  const likely = deps.admitter.likely(incoming.authorization);
  if (!likely) return undefined;
  bill.keyId = likely.keyId;
  const early: Early = { work: undefined!, admitted: undefined };
  early.work = parse(endpoint, incoming, likely, true).then((work) => {
    if (early.admitted === undefined) bill.charge(); // the input is valid and the key all but admitted
    return work;
  });
  early.work.catch(() => {}); // awaited only if the key is admitted
  return early;
}

/** Admits the key; on a refusal (401, or 503 with the database gone) answers it and returns that reply. */
async function admit(deps: EndpointDeps, res: HttpResponse, incoming: Incoming, bill: Bill, early: Early | undefined): Promise<Admission | Reply> {
  try {
    const admission = await deps.admitter.admit(incoming.authorization);
    if (early) early.admitted = admission.admitted;
    bill.keyId = admission.keyId;
    return admission;
  } catch (err) {
    if (early) early.admitted = false;
    const reply = errorReplyFor(err, incoming.requestId, deps.log);
    await send(res, incoming.client, reply, { 'X-Request-Id': incoming.requestId }, incoming.body !== undefined && reply.status === 413);
    if (bill.charging) {
      try {
        if ((await bill.charged()) !== undefined) await bill.giveBack();
      } catch (giveBackErr) {
        deps.log(`request ${incoming.requestId}: could not give back an early charge`, giveBackErr);
      }
    }
    return reply;
  }
}

/**
 * Reads the body and the Idempotency-Key, runs the endpoint's prepare() (validation: its 4xx come
 * before any charge), and finds the reply that can exist before its charge, if the endpoint has one.
 */
async function parse(endpoint: Endpoint, incoming: Incoming, admission: Admission, answerNow: boolean): Promise<Work> {
  const body = incoming.body ? parseJsonObject(await incoming.body) : undefined;
  // A body endpoint's parameters are all in its body (a GET endpoint checks its own query).
  if (endpoint.jsonBody) rejectQueryParameters(incoming.query, []);
  const idempotencyKey = idempotencyKeyOf(incoming.idempotencyHeader);
  const ctx: RouteContext = {
    admission, body, query: incoming.query, params: incoming.params, requestId: incoming.requestId,
    get signal() {
      return incoming.client.signal;
    },
  };
  if (endpoint.prepare) ctx.prepared = await endpoint.prepare(ctx);
  const cached = endpoint.ready?.(ctx);
  if (cached) return { ctx, idempotencyKey, cached };
  if (!endpoint.answer) return { ctx, idempotencyKey };
  let started: Promise<(creditsRemaining: number) => Reply> | undefined;
  const work: Work = {
    ctx,
    idempotencyKey,
    answering() {
      return (started ??= endpoint.answer!(ctx));
    },
  };
  if (answerNow) work.answering!().catch(() => {}); // awaited once the key is admitted
  return work;
}

/** Claims the Idempotency-Key, then charges and works: the claim, charge and work stages. */
async function chargeAndWork(endpoint: Endpoint, work: Work, bill: Bill, credits: number): Promise<Served> {
  if (work.idempotencyKey !== undefined) {
    const claim = await bill.claim(work.idempotencyKey, requestFingerprint(endpoint.name, requestOf(endpoint, work.ctx)));
    if (claim.kind === 'replay') return { reply: await replay(endpoint, work, claim, credits) };
  }
  // A free endpoint's charge is nothing (bill.charging stays false): its reply is made at once.
  if (work.cached) {
    bill.charge(work.cached.license);
    const cached = work.cached;
    return bill.charging ? { afterCharge: () => cached } : { reply: cached };
  }
  if (work.answering) {
    bill.charge(); // submitted before the answer takes the thread: its round trip overlaps the work
    const afterCharge = await work.answering();
    return bill.charging ? { afterCharge } : { reply: afterCharge(credits) };
  }
  return reserveAndWork(endpoint, work, bill, credits);
}

async function reserveAndWork(endpoint: Endpoint, work: Work, bill: Bill, credits: number): Promise<Served> {
  if (endpoint.cost > 0) {
    const balance = await bill.reserve();
    if (balance === undefined) throw insufficientCredits(await bill.refusedBalance(), endpoint.cost);
    credits = balance;
  }
  work.ctx.creditsRemaining = credits;
  if (work.cached) return { reply: work.cached, reservedCredits: credits };
  if (work.answering) return { reply: (await work.answering())(credits), reservedCredits: credits };
  if (!endpoint.handle) throw new Error(`${endpoint.name} has neither answer nor handle`);
  return { reply: await endpoint.handle(work.ctx), reservedCredits: credits };
}

/** What a request asks, for its Idempotency-Key's fingerprint: its body, or a GET's path ids and query. */
function requestOf(endpoint: Endpoint, ctx: RouteContext): unknown {
  return endpoint.jsonBody ? ctx.body : { params: ctx.params, query: [...ctx.query] };
}

/** The first request's reply again, uncharged: its stored body, or made again (the same work). */
async function replay(endpoint: Endpoint, work: Work, first: { reply: StoredReply; requestId: string }, credits: number): Promise<Reply> {
  const stored = first.reply;
  const replayed: Record<string, string> = { 'Idempotent-Replayed': 'true' };
  if (stored.body !== null) {
    return { status: stored.status, headers: { 'Content-Type': stored.contentType ?? 'application/json', ...replayed }, body: stored.body };
  }
  work.ctx.creditsRemaining = credits;
  let made: Reply;
  if (work.cached) made = work.cached;
  else if (work.answering) made = (await work.answering())(credits);
  else made = await endpoint.handle!(work.ctx);
  if (made.license) replayed['X-License-Id'] = licenseIdOf(first.requestId); // the license the first request was granted
  return { ...made, headers: { ...made.headers, ...replayed }, license: undefined };
}

/**
 * Makes the charge final or undoes it, whichever the outcome calls for, and releases an
 * Idempotency-Key the request did not complete. Returns the reply to send (none when the client
 * went away before a batched charge's reply was made) and the balance to show.
 */
async function settle(
  deps: EndpointDeps, endpoint: Endpoint, bill: Bill, served: Served | undefined, failed: Reply | undefined,
  credits: number, incoming: Incoming,
): Promise<{ reply: Reply | undefined; credits: number }> {
  const { client, requestId } = incoming;
  let reply = failed ?? served?.reply;
  try {
    if (bill.charging) {
      const balance = await bill.charged();
      if (!served?.afterCharge) {
        // The answer failed, or the key was refused after its early charge.
        if (balance !== undefined) credits = (await bill.giveBack()) ?? credits;
      } else if (balance === undefined) {
        credits = await bill.refusedBalance();
        reply = errorReplyFor(insufficientCredits(credits, endpoint.cost), requestId, deps.log);
      } else if (client.aborted) {
        credits = (await bill.giveBack()) ?? credits;
      } else {
        credits = balance;
        reply = served.afterCharge(balance);
        const stored = endpoint.idempotency === 'stored' ? storedReplyOf(endpoint, reply) : undefined;
        // Not kept (the database just went away): a replay makes the reply again instead.
        if (stored) await bill.keepBody(stored).catch((err) => deps.log(`request ${requestId}: reply body not kept for its Idempotency-Key`, err));
      }
    } else if (!bill.reserved && bill.balance) {
      credits = bill.balance.credits; // refused as too low: the balance that refused it
    } else if (bill.reserved) {
      credits = served?.reservedCredits ?? credits;
      const success = served?.reply !== undefined && served.reply.status < 400 && !client.aborted;
      if (!success) credits = (await bill.refund()) ?? credits;
      else if (!(await bill.commit(served!.reply!.status, served!.reply!.license, storedReplyOf(endpoint, served!.reply!)))) {
        reply = errorReply(new ApiError(503, 'service_unavailable', 'the charge could not be made final; nothing was charged; retry', { headers: { 'Retry-After': '1' } }), requestId);
      } else if (client.aborted) {
        credits = (await bill.giveBack()) ?? credits; // the client left while the commit was in flight
      }
    }
    await bill.release();
  } catch (err) {
    // A database failure while settling: the Bill retries its refund or give-back on its own.
    reply = errorReplyFor(err, requestId, deps.log);
  }
  return { reply, credits };
}

/** What is kept under an Idempotency-Key for this reply. */
function storedReplyOf(endpoint: Endpoint, reply: Reply): StoredReply | undefined {
  if (endpoint.idempotency === 'remade') return { status: reply.status, contentType: null, body: null };
  if (endpoint.idempotency === 'stored' && typeof reply.body === 'string') {
    return { status: reply.status, contentType: reply.headers['Content-Type'] ?? null, body: reply.body };
  }
  return undefined;
}

/** Sends the reply; false when none of it went out (the client had left). */
async function send(res: HttpResponse, client: Client, reply: Reply, headers: Record<string, string>, closeConnection: boolean): Promise<boolean> {
  if (client.aborted) return false;
  if (reply.file) return (await streamFile(res, reply.file, client.signal, () => writeHead(res, reply, headers))) !== 'unsent';
  res.cork(() => writeReply(res, reply, headers, closeConnection));
  return true;
}

function rateLimited(admission: Admission): ApiError {
  const seconds = admission.retryAfterSeconds;
  const which = refusedWindow(admission) === 'day' ? 'daily' : 'per-minute';
  return new ApiError(429, 'rate_limited', `${which} rate limit exceeded; retry after ${seconds} s`, {
    body: { retry_after: seconds },
    headers: { 'Retry-After': String(seconds) },
  });
}

function insufficientCredits(balance: number, cost: number): Refusal {
  return new Refusal('insufficient_credits', `insufficient credits: balance is ${balance}, this request costs ${cost}`);
}
