// Framing checks uWS leaves to us (RFC 9112 §6.3): it frames a body by the first Content-Length
// and ignores any other, so a request with two different lengths would have the rest of its body
// read as a further request (request smuggling). Such a request is refused and its connection
// closed. (Content-Length beside Transfer-Encoding, the other ambiguous framing, uWS refuses itself
// by closing the connection.)
import type { HttpRequest } from 'uWebSockets.js';
import { ApiError } from './api-error.ts';
import { quoted } from './value-preview.ts';

/** The framing error of a request head, or undefined when its body's length is unambiguous. */
export function framingError(req: HttpRequest): ApiError | undefined {
  let length: string | undefined;
  let conflict: string | undefined;
  req.forEach((name, value) => {
    if (name !== 'content-length' || conflict !== undefined) return;
    if (length === undefined) length = value;
    else if (value !== length) conflict = value;
  });
  if (conflict === undefined) return undefined;
  return new ApiError(400, 'malformed_request',
    `conflicting Content-Length headers (${quoted(length!)} and ${quoted(conflict)}): the body's length is ambiguous; send one Content-Length`);
}
