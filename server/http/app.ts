// The uWS application: routes, JSON 404/405, health, and a listen/close pair for the server.
import uws from 'uWebSockets.js';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { ApiError } from './api-error.ts';
import type { Endpoint, EndpointDeps } from './endpoint.ts';
import { endpointHandler } from './endpoint-handler.ts';
import { errorReply, jsonReply, writeReply, type Reply } from './reply.ts';
import { headOnly } from './head.ts';
import { framingError, noLengthHeaders, noteLengthHeader, type LengthHeaders } from './framing.ts';
import { errorReplyFor, type Log } from './error-reply.ts';
import { newRequestId } from './request-id.ts';
import type { ObserveRequest } from '../observability/request-observer.ts';
import { CLIENT_CLOSED, type Finish } from './finish.ts';

export const API_BASE = '/api/external/v1';
// The status a request is recorded with when its client went away before the reply.
type Method = 'get' | 'post';
/** The methods a route is registered for: a GET route answers HEAD too. */
type RegisteredMethod = Method | 'head';

type RawHandler = (res: HttpResponse, req: HttpRequest, finish: Finish) => void;

export interface Route {
  method: Method;
  path: string;
  /** In logs and metrics; default the path. */
  name?: string;
  handler: RawHandler;
  /** A GET route answers HEAD too (head.ts), unless this is false: a HEAD that would be charged for nothing. */
  head?: boolean;
}

/**
 * The package falls back to a slow pure-JS server when its native binary does not load
 * (wrong Node ABI, missing glibc); a service that silently runs 20x slower is worse than one that stops.
 */
export function assertNativeUws(): void {
  const native = Function.prototype.toString.call(uws.App).includes('[native code]');
  if (!native) {
    throw new Error('uWebSockets.js native binary did not load (the package fell back to its JS server); ' +
      `this build supports Node 20 on linux/darwin x64/arm64, this is Node ${process.versions.node} ${process.platform}-${process.arch}`);
  }
}

export function apiRoute(deps: EndpointDeps, method: Method, path: string, endpoint: Endpoint): Route {
  return { method, path: API_BASE + path, name: endpoint.name, handler: endpointHandler(deps, endpoint), head: endpoint.cost === 0 };
}

/** A handler that needs no key or database round trip, answered at once. */
export function immediate(reply: (requestId: string, req: HttpRequest) => Reply): RawHandler {
  return (res, req, finish) => {
    const startedAt = performance.now();
    const requestId = newRequestId();
    const made = reply(requestId, req);
    res.cork(() => writeReply(res, made, { 'X-Request-Id': requestId }));
    finish(requestId, startedAt, made.status);
  };
}

/**
 * An async handler without the key pipeline (health, previews): registers onAborted, writes in
 * cork; its errors map as the pipeline's do (a database that cannot be reached: 503).
 */
export function unauthenticated(handle: (req: HttpRequest, requestId: string) => Promise<Reply>, log: Log): RawHandler {
  return (res, req, finish) => {
    const startedAt = performance.now();
    const requestId = newRequestId();
    let aborted = false;
    res.onAborted(() => (aborted = true));
    handle(req, requestId)
      .catch((err) => errorReplyFor(err, requestId, log))
      .then((reply) => {
        if (!aborted) res.cork(() => writeReply(res, reply, { 'X-Request-Id': requestId }));
        finish(requestId, startedAt, aborted ? CLIENT_CLOSED : reply.status);
      });
  };
}

/**
 * The longest request head (request line, headers, blank line) we serve. This uWS build (v20.30)
 * keeps at most 4 KiB of a head that arrives in more than one read, and closes the connection
 * without a reply when the head is longer (it has no 431 of its own, and no setting for the size);
 * a longer head that arrives in one read is parsed. So a 5 KiB head worked or not depending on how
 * TCP cut it: we answer every longer head that does reach us with a 431, so none works by luck.
 * (uWS also parses at most 48 header fields; with more, it waits for the rest of the head until
 * its idle timeout, ~10 s, and closes the connection: such a request never reaches us.)
 */
export const MAX_HEAD_BYTES = 4096;

/**
 * The head's size as a client writes it ("name: value"; uWS has trimmed whitespace around values),
 * with its Content-Length headers noted in `lengths` on the same pass over the headers.
 */
function headBytes(req: HttpRequest, lengths: LengthHeaders): number {
  const query = req.getQuery();
  let bytes = req.getMethod().length + 1 + req.getUrl().length + (query ? 1 + query.length : 0) + ' HTTP/1.1\r\n\r\n'.length;
  req.forEach((name, value) => {
    bytes += name.length + 2 + value.length + 2;
    noteLengthHeader(lengths, name, value);
  });
  return bytes;
}

const refuseLargeHead = (bytes: number) => immediate((requestId) => {
  const message = `request line and headers are ${bytes} bytes; at most ${MAX_HEAD_BYTES} are accepted`;
  return errorReply(new ApiError(431, 'headers_too_large', message), requestId);
});

/**
 * A request whose framing is ambiguous: a 400, and its connection closed unread. Answered on the
 * next turn of the event loop, not in the handler: uWS goes on parsing what it has already read
 * from the connection after a handler ends its reply, even with the connection marked to close, so
 * the bytes after the first Content-Length would be served as a request. While this reply is
 * pending, uWS closes a connection on which another request arrives, so a smuggled request in
 * the same read ends the connection without an answer to anything.
 */
function refuseFraming(error: ApiError): RawHandler {
  return (res, _req, finish) => {
    const startedAt = performance.now();
    const requestId = newRequestId();
    const reply = errorReply(error, requestId);
    let aborted = false;
    res.onAborted(() => (aborted = true));
    setImmediate(() => {
      if (!aborted) res.cork(() => writeReply(res, reply, { 'X-Request-Id': requestId }, true));
      finish(requestId, startedAt, aborted ? CLIENT_CLOSED : reply.status);
    });
  };
}

/**
 * Every handler of the app: the framing and head size are checked first, before any route reads
 * the request; a HEAD request's response writes no body, whatever answers it (head.ts).
 */
function headChecked(handler: RawHandler, finish: Finish): (res: HttpResponse, req: HttpRequest) => void {
  return (response, req) => {
    const res = req.getMethod() === 'head' ? headOnly(response) : response;
    const lengths = noLengthHeaders();
    const bytes = headBytes(req, lengths);
    const framing = framingError(lengths);
    if (framing) return refuseFraming(framing)(res, req, finish);
    if (bytes > MAX_HEAD_BYTES) return refuseLargeHead(bytes)(res, req, finish);
    handler(res, req, finish);
  };
}

export interface AppState {
  /** Set during shutdown: new requests on kept-alive connections get 503 and the connection closes. */
  draining: boolean;
}

// The route name of requests no route matched: their paths are the client's, not a bounded set.
const UNMATCHED = '(unmatched)';

/** `observe` gets every finished request, under its route's name (an endpoint's route names itself). */
export function buildApp(routes: Route[], state: AppState, observe: ObserveRequest = () => {}): TemplatedApp {
  const app = uws.App();
  const allowed = new Map<string, RegisteredMethod[]>();
  const finishOf = (route: string): Finish => (requestId, startedAt, status, credits = 0, authorization = '') =>
    observe({ requestId, route, startedAt, status, credits, authorization });
  for (const route of routes) {
    const finish = finishOf(route.name ?? route.path);
    const handler = headChecked((res, req) => {
      if (state.draining) return refuseWhileDraining(res, finish);
      route.handler(res, req, finish);
    }, finish);
    const methods: RegisteredMethod[] = route.method === 'get' && route.head !== false ? ['get', 'head'] : [route.method];
    for (const method of methods) app[method](route.path, handler);
    allowed.set(route.path, [...(allowed.get(route.path) ?? []), ...methods]);
  }
  for (const [path, methods] of allowed) {
    const allow = methods.map((m) => m.toUpperCase()).join(', ');
    app.any(path, headChecked(immediate((requestId, req) => {
      const message = `method ${req.getMethod().toUpperCase()} not allowed on ${path}; use ${allow}`;
      return errorReply(new ApiError(405, 'method_not_allowed', message, { headers: { Allow: allow } }), requestId);
    }), finishOf(path)));
  }
  app.any('/*', headChecked(immediate((requestId, req) => errorReply(new ApiError(404, 'not_found', `no such endpoint: ${req.getUrl()}`), requestId)), finishOf(UNMATCHED)));
  return app;
}

function refuseWhileDraining(res: HttpResponse, finish: Finish) {
  const startedAt = performance.now();
  const requestId = newRequestId();
  const reply = errorReply(new ApiError(503, 'service_unavailable', 'server is shutting down; retry', { headers: { 'Retry-After': '1' } }), requestId);
  res.cork(() => writeReply(res, reply, { 'X-Request-Id': requestId }, true));
  finish(requestId, startedAt, reply.status);
}

export function listen(app: TemplatedApp, host: string, port: number): Promise<{ port: number; close(): void }> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket: us_listen_socket | false) => {
      if (!socket) return reject(new Error(`cannot listen on ${host}:${port}`));
      resolve({ port: uws.us_socket_local_port(socket), close: () => uws.us_listen_socket_close(socket) });
    });
  });
}

export function healthReply(ok: boolean, body: Record<string, unknown>): Reply {
  return jsonReply({ status: ok ? 'ok' : 'degraded', ...body }, ok ? 200 : 503);
}
