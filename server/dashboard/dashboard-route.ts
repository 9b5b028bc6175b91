// The uWS handler of a dashboard route: reads the request at once (uWS invalidates it at the first
// await), finds the session of its cookie, checks the CSRF token of a state-changing call, runs
// the route and writes its reply with the dashboard's headers (headers.ts).
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { Route } from '../http/app.ts';
import type { Finish } from '../http/finish.ts';
import { ApiError } from '../http/api-error.ts';
import { MAX_BODY_BYTES, readBody, parseJsonObject } from '../http/body.ts';
import { watchClient, type Client } from '../http/client-watch.ts';
import { errorReplyFor, type Log } from '../http/error-reply.ts';
import { newRequestId } from '../http/request-id.ts';
import { writeReply, type Reply } from '../http/reply.ts';
import { pathParameter } from '../http/path-parameter.ts';
import { clientAddress } from '../http/client-address.ts';
import { rejectQueryParameters } from '../http/query.ts';
import type { Sql } from '../../db/connect.ts';
import { csrfTokenMatches, findSession, type Session } from '../../billing/sessions.ts';
import { cookieValue, SESSION_COOKIE } from './cookies.ts';
import { DASHBOARD_HEADERS } from './headers.ts';

// The status a request is recorded with when its client went away before the reply.
const CLIENT_CLOSED = 499;
export const CSRF_HEADER = 'x-csrf-token';

export interface DashboardRequest {
  method: 'get' | 'post';
  cookies: string;
  csrfHeader: string;
  /** The Host header: decides the cookies' Secure attribute. */
  host: string;
  address: string;
  query: URLSearchParams;
  params: string[];
  requestId: string;
  client: Client;
  res: HttpResponse;
  /** The raw body of a POST. */
  body: Promise<Buffer> | undefined;
  /** The body of a POST as a JSON object; {} when it is empty. */
  json(): Promise<Record<string, unknown>>;
}

/**
 * public: anyone (sign-in); signed-in: a session whose password is not a one-time one;
 * password-change: any session (what a one-time password may still do: see and change itself, sign out).
 */
export type Access = 'public' | 'signed-in' | 'password-change';

export interface DashboardRoute {
  method: 'get' | 'post';
  path: string;
  paramCount?: number;
  access: Access;
  /** Pages redirect to the sign-in page instead of answering 401. */
  page?: boolean;
  /** A GET that acts (a call with one of the account's keys): needs the CSRF token as a POST does. */
  csrf?: boolean;
  /** A call of an API endpoint with one of the account's keys (?key_id=, keyed-endpoint.ts), which checks its own query. */
  keyed?: boolean;
  /** The reply, or the status of one the route wrote itself (through the API's pipeline). */
  handle(req: DashboardRequest, session: Session | undefined): Promise<Reply | Sent>;
}

/** A reply written by the API's pipeline (keyed-endpoint.ts), with the status it sent. */
export interface Sent {
  sent: number;
}

export interface DashboardDeps {
  sql: Sql;
  log: Log;
  /** Fronts whose X-Forwarded-For names the client (config.ts trustedProxies). */
  trustedProxies: ReadonlySet<string>;
}

export function dashboardRoute(deps: DashboardDeps, route: DashboardRoute): Route {
  return { method: route.method, path: route.path, handler: (res, req, finish) => handle(deps, route, res, req, finish) };
}

function readRequest(deps: DashboardDeps, route: DashboardRoute, res: HttpResponse, req: HttpRequest): DashboardRequest {
  const client = watchClient(res);
  const params: string[] = [];
  for (let i = 0; i < (route.paramCount ?? 0); i++) params.push(pathParameter(req, i));
  const body = route.method === 'post' ? readBody(res, req.getHeader('content-length'), client, MAX_BODY_BYTES, req.getHeader('transfer-encoding')) : undefined;
  body?.catch(() => {}); // awaited by the route, or not at all when the session is refused first
  return {
    method: route.method, cookies: req.getHeader('cookie'), csrfHeader: req.getHeader(CSRF_HEADER), host: req.getHeader('host'),
    address: clientAddress(Buffer.from(res.getRemoteAddressAsText()).toString(), req.getHeader('x-forwarded-for'), deps.trustedProxies), query: new URLSearchParams(req.getQuery() ?? ''), params,
    requestId: newRequestId(), client, res, body,
    async json() {
      const raw = await body!;
      return raw.byteLength === 0 ? {} : parseJsonObject(raw);
    },
  };
}

function handle(deps: DashboardDeps, route: DashboardRoute, res: HttpResponse, req: HttpRequest, finish: Finish): void {
  const startedAt = performance.now();
  const request = readRequest(deps, route, res, req);
  run(deps, route, request)
    .catch((err) => errorReplyFor(err, request.requestId, deps.log))
    .then((reply) => {
      if ('sent' in reply) return finish(request.requestId, startedAt, reply.sent);
      if (!request.client.aborted) res.cork(() => writeReply(res, reply, { ...DASHBOARD_HEADERS, 'X-Request-Id': request.requestId }, reply.status === 413));
      finish(request.requestId, startedAt, request.client.aborted ? CLIENT_CLOSED : reply.status);
    });
}

async function run(deps: DashboardDeps, route: DashboardRoute, request: DashboardRequest): Promise<Reply | Sent> {
  if (route.access === 'public') return handled(route, request, undefined);
  const session = await findSession(deps.sql, cookieValue(request.cookies, SESSION_COOKIE));
  if (!session) {
    if (route.page) return { status: 303, headers: { Location: '/dashboard/login' }, body: '' };
    // sign_in tells the pages this 401 is the session's (they go to sign in), not a key's (a catalog call with a revoked key).
    throw new ApiError(401, 'unauthorized', 'not signed in, or the session has expired or was signed out; sign in at /dashboard/login', { body: { sign_in: '/dashboard/login' } });
  }
  if (route.method === 'post' || route.csrf) checkCsrf(request.csrfHeader, session.csrfToken);
  if (route.access === 'signed-in' && session.passwordMustChange) {
    if (route.page) return { status: 303, headers: { Location: '/dashboard/password' }, body: '' };
    throw new ApiError(403, 'password_change_required', 'this account signed in with a one-time password: choose a new password first (POST /dashboard/api/password)');
  }
  return handled(route, request, session);
}

/** The route's reply, once its query is checked (after the session's checks, as the API checks its key first). */
function handled(route: DashboardRoute, request: DashboardRequest, session: Session | undefined): Promise<Reply | Sent> {
  // A POST's parameters are in its body; a catalog call's key_id is read, and the rest refused, by keyed-endpoint.ts.
  if (route.method === 'post' && !route.keyed) rejectQueryParameters(request.query, []);
  return route.handle(request, session);
}

/** Every state-changing call carries the session's CSRF token: a cross-site form or fetch cannot know it. */
export function checkCsrf(sent: string, expected: string): void {
  if (sent === '') throw new ApiError(403, 'csrf_token_invalid', 'missing X-CSRF-Token header: send the csrf_token of GET /dashboard/api/session');
  if (!csrfTokenMatches(sent, expected)) throw new ApiError(403, 'csrf_token_invalid', 'X-CSRF-Token does not match this session; reload the page');
}
