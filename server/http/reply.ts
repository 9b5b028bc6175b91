// What a route returns, and how it is written to a uWS response (always inside res.cork).
import type { HttpResponse } from 'uWebSockets.js';
import { ApiError } from './api-error.ts';
import { reasonPhrase, statusLine } from './status-text.ts';
import type { License } from '../../billing/licenses.ts';
import type { OpenedFile } from '../../catalog/track-files.ts';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Instead of body: a file streamed from disk with backpressure, closed by the pipeline once sent or dropped. */
  file?: OpenedFile;
  /** Recorded with the credit commit (same statement): the license a paid download grants. */
  license?: License;
}

export type { License };

export function jsonReply(body: unknown, status = 200, headers: Record<string, string> = {}): Reply {
  return jsonTextReply(JSON.stringify(body), status, headers);
}

/** A reply whose JSON the route wrote itself (from parts already serialized). */
export function jsonTextReply(json: string, status = 200, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'Content-Type': 'application/json', ...headers }, body: json };
}

/** The error shape of the design: error, code, message, request_id (+ extra fields). */
export function errorReply(error: ApiError, requestId: string): Reply {
  const body = {
    error: reasonPhrase(error.status),
    code: error.code,
    message: error.message,
    request_id: requestId,
    ...error.extra.body,
  };
  return jsonReply(body, error.status, error.extra.headers);
}

export function internalErrorReply(requestId: string): Reply {
  return errorReply(new ApiError(500, 'internal_error', 'internal server error; retry after a short delay'), requestId);
}

// On every response: a browser never reads a body as another type than it is said to be (a JSON
// error that quotes input as HTML). The dashboard's pages send it among their own headers.
const NO_SNIFF = 'X-Content-Type-Options';

/** Writes the status line and headers. Call inside res.cork. */
export function writeHead(res: HttpResponse, reply: Reply, headers: Record<string, string>): void {
  res.writeStatus(statusLine(reply.status));
  for (const name in headers) res.writeHeader(name, headers[name]);
  for (const name in reply.headers) res.writeHeader(name, reply.headers[name]);
  if (!(NO_SNIFF in headers) && !(NO_SNIFF in reply.headers)) res.writeHeader(NO_SNIFF, 'nosniff');
}

/** Writes status, headers and body. Call inside res.cork, only while the response is not aborted. */
export function writeReply(res: HttpResponse, reply: Reply, headers: Record<string, string>, closeConnection = false): void {
  writeHead(res, reply, headers);
  res.end(reply.body, closeConnection);
}
