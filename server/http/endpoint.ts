// What an API endpoint is, and what the request pipeline needs (pipeline.ts; the uWS handler that
// feeds it is endpoint-handler.ts).
import type { Admission, Admitter } from '../../billing/admission.ts';
import type { LedgerDeps } from '../../billing/bill.ts';
import type { UsageLog } from '../../billing/usage-log.ts';
import type { Reply } from './reply.ts';
import type { InFlight } from './in-flight.ts';
import type { Log } from './error-reply.ts';

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
  /**
   * Takes an Idempotency-Key: 'stored' keeps the first reply's body to replay it (search: the
   * catalog may change); 'remade' makes the reply again, uncharged (a clip is deterministic).
   */
  idempotency?: 'stored' | 'remade';
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
  admitter: Admitter;
  ledger: LedgerDeps;
  usage: UsageLog;
  inFlight: InFlight;
  log: Log;
}
