// The pipeline every API endpoint runs through, in order:
//   admit (auth + rate limit) -> body -> reserve credits -> route -> commit or refund -> write -> usage.
// Credits are committed before the success status is written and refunded on any failure or abort.
// A reply that can exist before its charge (a cache hit, a read-only answer) skips the reservation:
//   admit -> body -> validate -> charge (one batched statement) while the answer is worked out -> write -> usage.
// For a key this process admitted moments ago, an answer and its charge start while the admission
// is counted; a refusal then gives the charge back.
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { Sql } from '../../db/connect.ts';
import { limitHeaders, type Admission, type Admitter } from '../../billing/admission.ts';
import { commitCredits, refundCredits, reserveCredits, returnCommittedCredits, type Charge, type Charger, type Reservation } from '../../billing/credits.ts';
import type { UsageLog } from '../../billing/usage-log.ts';
import { ApiError } from './api-error.ts';
import { Refusal } from '../../billing/refusal.ts';
import { refusalError } from './refusal-error.ts';
import { parseJsonObject, readBody, type ClientWatch } from './body.ts';
import { errorReply, internalErrorReply, writeHead, writeReply, type License, type Reply } from './reply.ts';
import { streamFile } from './stream-file.ts';
import { newRequestId } from './request-id.ts';
import type { InFlight } from './in-flight.ts';

export interface RouteContext {
  admission: Admission;
  /** What the endpoint's prepare() returned (validated input, looked-up resources). */
  prepared?: unknown;
  /** Balance after this request's reservation (paid endpoints), for bodies that report it. */
  creditsRemaining?: number;
  body: Record<string, unknown> | undefined;
  query: URLSearchParams;
  params: string[];
  requestId: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export interface Endpoint {
  /** Name in usage records, e.g. "/me". */
  name: string;
  /** Credits charged for a successful (2xx) response. */
  cost: number;
  /** True for POST endpoints that take a JSON object body. */
  jsonBody: boolean;
  /** Number of URL parameters to capture (req.getParameter). */
  paramCount?: number;
  /** Validation and lookups that run before credits are reserved: their 4xx never touch the balance. */
  prepare?(ctx: RouteContext): Promise<unknown>;
  /**
   * A reply that already exists in memory (a cache hit), or undefined. For a paid endpoint it
   * is charged by one statement after it exists, with its license, instead of reserve + commit:
   * nothing can fail between taking the credit and making the reply.
   */
  ready?(ctx: RouteContext): Reply | undefined;
  /**
   * For a read-only endpoint (search): works out the answer from input prepare() validated. It
   * is charged by one statement, as a `ready` reply is, taken while the answer is worked out; the
   * reply is made with the balance after the charge. An answer that fails gets its charge given
   * back; one that finds the balance empty is dropped (402). Its reply carries no license.
   */
  answer?(ctx: RouteContext): Promise<(creditsRemaining: number) => Reply>;
  /** Reserve credits, do the work, commit or refund: for work that writes or can fail late. */
  handle?(ctx: RouteContext): Promise<Reply>;
}

export interface EndpointDeps {
  sql: Sql;
  /** For reservations and refunds (see Database.relaxedSql). */
  relaxedSql: Sql;
  admitter: Admitter;
  /** Charges replies that already exist (Endpoint.ready), in batches. */
  charger: Charger;
  usage: UsageLog;
  inFlight: InFlight;
  log: (message: string, err?: unknown) => void;
}

class ClientGone extends Error {}

export function endpointHandler(deps: EndpointDeps, endpoint: Endpoint) {
  return (res: HttpResponse, req: HttpRequest): void => {
    const startedAt = performance.now();
    const requestedAt = new Date();
    const requestId = newRequestId();
    const client = watchClient(res);

    // Everything from req must be read now: it is invalid after the first await.
    const authorization = req.getHeader('authorization');
    const query = new URLSearchParams(req.getQuery() ?? '');
    const params: string[] = [];
    for (let i = 0; i < (endpoint.paramCount ?? 0); i++) params.push(req.getParameter(i) ?? '');
    const body = endpoint.jsonBody ? readBody(res, req.getHeader('content-length'), client) : undefined;
    body?.catch(() => {}); // consumed below; avoids an unhandled rejection if auth fails first

    const done = deps.inFlight.begin();
    run(deps, endpoint, res, { authorization, query, params, body, requestId, client, startedAt, requestedAt })
      .catch((err) => deps.log(`request ${requestId} failed while responding`, err))
      .finally(done);
  };
}

/** onGone calls its listener (with a ClientGone) when the client goes away, at once if it has. */
interface Client extends ClientWatch {
  readonly aborted: boolean;
  /** Aborted when the client goes away; made only when something waits on it (most requests never do). */
  readonly signal: AbortSignal;
}

// Listeners in a plain array: an AbortController and its listener per request cost more (profiled).
// No named closures on a per-request path: tsx (esbuild keepNames) gives each one its name with an
// Object.defineProperty call when it is made; methods and anonymous callbacks are left alone.
function watchClient(res: HttpResponse): Client {
  let gone = false;
  let listeners: ((reason: unknown) => void)[] | undefined;
  let controller: AbortController | undefined;
  res.onAborted(() => {
    gone = true;
    if (listeners) for (const listener of listeners) listener(new ClientGone());
  });
  return {
    get aborted() {
      return gone;
    },
    onGone(listener) {
      if (gone) listener(new ClientGone());
      else (listeners ??= []).push(listener);
    },
    get signal() {
      if (!controller) {
        controller = new AbortController();
        this.onGone(controller.abort.bind(controller));
      }
      return controller.signal;
    },
  };
}

interface Incoming {
  authorization: string;
  query: URLSearchParams;
  params: string[];
  body: Promise<Buffer> | undefined;
  requestId: string;
  client: Client;
  startedAt: number;
  requestedAt: Date;
}

async function run(deps: EndpointDeps, endpoint: Endpoint, res: HttpResponse, incoming: Incoming): Promise<void> {
  const { requestId, client } = incoming;
  // A read-only answer for a key this process admitted moments ago is worked out while the
  // admission is being counted; it is used only if the key is admitted, and its errors count only
  // then, so the order of checks stays 401, 429, 400. Its charge goes out as soon as its input is
  // valid, alongside the admission: the key is all but admitted, and the rare refusal gives the
  // credit back below. That saves the charge's round trip after the admission's.
  const likely = endpoint.answer ? deps.admitter.likely(incoming.authorization) : undefined;
  const charge: Charge = { keyId: likely?.keyId ?? 0, amount: endpoint.cost, license: undefined, requestId };
  let charging: Promise<number | undefined> | undefined; // the charge of a ready reply or an answer
  let admitted: boolean | undefined; // known once the admission is counted
  const early = likely && startWork(endpoint, incoming, likely, true).then((work) => {
    if (admitted === undefined) charging ??= startCharge(deps, endpoint, client, charge);
    return work;
  });
  early?.catch(() => {}); // awaited below only if the key is admitted
  let admission: Admission;
  try {
    admission = await deps.admitter.admit(incoming.authorization);
    admitted = admission.admitted;
  } catch (err) {
    // Unauthenticated: no key to charge or record against (an early charge is given back).
    admitted = false;
    if (err instanceof Refusal) err = refusalError(err);
    const reply = err instanceof ApiError ? errorReply(err, requestId) : failure(deps, requestId, err);
    send(res, client, reply, { 'X-Request-Id': requestId }, incoming.body !== undefined && reply.status === 413);
    if (charging) await giveBack(deps, charging, charge, requestId);
    return;
  }

  let reservation: Reservation | undefined;
  let makeReady: ((credits: number) => Reply) | undefined; // a reply that exists before its charge
  let readyReply: Reply | undefined;
  charge.keyId = admission.keyId;
  let credits = admission.credits;
  let reply!: Reply;
  let closeConnection = false;
  try {
    if (!admission.admitted) throw rateLimited(admission);
    const work = await (early ?? startWork(endpoint, incoming, admission, false));
    const ctx = work.ctx;
    ctx.admission = admission; // the counted one, for the headers of anything that reads it later
    if (work.cached || work.answering) {
      // The input is valid and the key admitted: the charge is taken while an answer is worked
      // out (given back below if the answer fails). It is handed to the database first, so its
      // round trip runs alongside the answer's work on this thread.
      charge.license = work.cached?.license;
      charging ??= startCharge(deps, endpoint, client, charge);
      makeReady = work.cached ? () => work.cached! : await work.answering!();
    }
    if (makeReady) {
      reply = readyReply = makeReady(credits);
    } else {
      if (!endpoint.handle) throw new Error(`${endpoint.name} has neither answer nor handle`);
      if (endpoint.cost > 0) {
        reservation = await reserveCredits(deps.relaxedSql, admission.keyId, endpoint.cost);
        if (!reservation) throw insufficientCredits(admission.credits, endpoint.cost);
        credits = reservation.creditsRemaining;
        deps.admitter.noteCredits(admission.keyId, credits);
      }
      ctx.creditsRemaining = credits;
      reply = await endpoint.handle(ctx);
    }
  } catch (err) {
    if (err instanceof ClientGone) reply = errorReply(new ApiError(499, 'client_closed', 'client closed the request'), requestId);
    else if (err instanceof ApiError) reply = errorReply(err, requestId);
    else reply = failure(deps, requestId, err);
    closeConnection = reply.status === 413;
  }

  let charged = 0;
  if (charging) {
    try {
      const balance = await charging;
      const answered = reply === readyReply;
      if (balance === undefined) {
        if (answered) reply = errorReply(insufficientCredits(credits, endpoint.cost), requestId);
      } else if (!answered) {
        // The answer failed, or the key was refused after its early charge.
        credits = (await returnCommittedCredits(deps.sql, charge, charge.license ? requestId : undefined)) ?? credits;
        deps.admitter.noteCredits(admission.keyId, credits);
      } else if (await keptUnlessGone(deps.sql, client, charge)) {
        charged = endpoint.cost;
        credits = balance;
        deps.admitter.noteCredits(admission.keyId, credits);
        reply = makeReady!(credits);
      }
    } catch (err) {
      const failed = failure(deps, requestId, err);
      if (reply === readyReply) reply = failed;
    }
  }
  if (reservation) {
    try {
      const success = reply.status < 400 && !client.aborted;
      if (success && (await settleCommit(deps.sql, reservation, client, reply.license, requestId))) charged = reservation.amount;
      else {
        credits = (await refundCredits(deps.relaxedSql, reservation)) ?? credits;
        deps.admitter.noteCredits(admission.keyId, credits);
      }
    } catch (err) {
      // The reservation row stays; the periodic sweep of abandoned reservations refunds it.
      reply = failure(deps, requestId, err);
    }
  }

  const status = client.aborted ? 499 : reply.status;
  const headers = limitHeaders(admission, credits);
  headers['X-Request-Id'] = requestId;
  if (reply.status === 429) headers['X-RateLimit-Remaining'] = '0';
  await send(res, client, reply, headers, closeConnection);
  deps.usage.record({
    keyId: admission.keyId,
    requestedAt: incoming.requestedAt,
    endpoint: endpoint.name,
    statusCode: status,
    creditsConsumed: charged,
    responseTimeMs: performance.now() - incoming.startedAt,
    requestId,
  });
}

/**
 * Reads the body, runs the endpoint's prepare() (validation: its 4xx come before any charge),
 * and starts the reply that can exist before its charge (a cache hit, a read-only answer), if
 * the endpoint has one.
 */
async function startWork(endpoint: Endpoint, incoming: Incoming, admission: Admission, answerNow: boolean): Promise<Work> {
  const body = incoming.body ? parseJsonObject(await incoming.body) : undefined;
  const ctx: RouteContext = {
    admission, body, query: incoming.query, params: incoming.params, requestId: incoming.requestId,
    get signal() {
      return incoming.client.signal;
    },
  };
  if (endpoint.prepare) ctx.prepared = await endpoint.prepare(ctx);
  const cached = endpoint.ready?.(ctx);
  if (cached) return { ctx, cached };
  if (!endpoint.answer) return { ctx };
  let started: Promise<(creditsRemaining: number) => Reply> | undefined;
  const work: Work = {
    ctx,
    answering() {
      return (started ??= endpoint.answer!(ctx));
    },
  };
  if (answerNow) work.answering!().catch(() => {}); // awaited by run() once the key is admitted
  return work;
}

interface Work {
  ctx: RouteContext;
  /** A reply that exists already (Endpoint.ready). */
  cached?: Reply;
  /** Starts (once) or joins the answer's work (Endpoint.answer): its input is valid, so it can be charged. */
  answering?: () => Promise<(creditsRemaining: number) => Reply>;
}

/** Submits the charge of a ready reply or an answer (none for a free endpoint or a client gone). */
function startCharge(deps: EndpointDeps, endpoint: Endpoint, client: Client, charge: Charge): Promise<number | undefined> | undefined {
  if (endpoint.cost === 0 || client.aborted) return undefined;
  const charging = deps.charger.charge(charge);
  charging.catch(() => {}); // awaited by run(); failing before that must not end the process (unhandled rejection)
  return charging;
}

/** Gives back a charge taken for a request that was then refused. */
async function giveBack(deps: EndpointDeps, charging: Promise<number | undefined>, charge: Charge, requestId: string): Promise<void> {
  try {
    if ((await charging) !== undefined) await returnCommittedCredits(deps.sql, charge);
  } catch (err) {
    deps.log(`request ${requestId}: could not give back an early charge`, err);
  }
}

/** Commits; if the client left while the commit was in flight, gives the credits back. */
async function settleCommit(sql: Sql, reservation: Reservation, client: Client, license: License | undefined, requestId: string): Promise<boolean> {
  if (!(await commitCredits(sql, reservation, license, requestId))) return false;
  return keptUnlessGone(sql, client, { keyId: reservation.keyId, amount: reservation.amount, license, requestId });
}

/** After a final charge: true if the client is still there; otherwise gives the credits (and license) back. */
async function keptUnlessGone(sql: Sql, client: Client, charge: Charge): Promise<boolean> {
  if (!client.aborted) return true;
  await returnCommittedCredits(sql, charge, charge.license ? charge.requestId : undefined);
  return false;
}

async function send(res: HttpResponse, client: Client, reply: Reply, headers: Record<string, string>, closeConnection: boolean): Promise<void> {
  if (client.aborted) return;
  if (reply.file) {
    await streamFile(res, reply.file.path, reply.file.size, client.signal, () => writeHead(res, reply, headers));
    return;
  }
  res.cork(() => writeReply(res, reply, headers, closeConnection));
}

function failure(deps: EndpointDeps, requestId: string, err: unknown): Reply {
  deps.log(`request ${requestId}: internal error`, err);
  return internalErrorReply(requestId);
}

function rateLimited(admission: Admission): ApiError {
  const seconds = admission.retryAfterSeconds;
  const which = admission.requestsPerDay !== null && admission.dayCount >= admission.requestsPerDay ? 'daily' : 'per-minute';
  return new ApiError(429, 'rate_limited', `${which} rate limit exceeded; retry after ${seconds} s`, {
    body: { retry_after: seconds },
    headers: { 'Retry-After': String(seconds) },
  });
}

function insufficientCredits(balance: number, cost: number): ApiError {
  return new ApiError(402, 'insufficient_credits', `insufficient credits: balance is ${balance}, this request costs ${cost}`);
}
