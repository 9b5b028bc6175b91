// Framing checks uWS leaves to us (RFC 9112 §6.3): it frames a body by the first Content-Length
// and ignores any other, so a request with two different lengths would have the rest of its body
// read as a further request (request smuggling). Such a request is refused and its connection
// closed. (Content-Length beside Transfer-Encoding, the other ambiguous framing, uWS refuses itself
// by closing the connection.)
import { ApiError } from './api-error.ts';
import { quoted } from './value-preview.ts';

/** Tracks the Content-Length headers of a request head, one header at a time. */
export interface LengthHeaders {
  first: string | undefined;
  /** A second Content-Length that differs from the first. */
  conflict: string | undefined;
}

export function noLengthHeaders(): LengthHeaders {
  return { first: undefined, conflict: undefined };
}

/** Records one header of the head (uWS gives names in lower case). */
export function noteLengthHeader(seen: LengthHeaders, name: string, value: string): void {
  if (name !== 'content-length' || seen.conflict !== undefined) return;
  if (seen.first === undefined) seen.first = value;
  else if (value !== seen.first) seen.conflict = value;
}

/** The framing error of a request head whose Content-Length headers were `seen`, or undefined when its body's length is unambiguous. */
export function framingError(seen: LengthHeaders): ApiError | undefined {
  if (seen.conflict === undefined) return undefined;
  return new ApiError(400, 'malformed_request',
    `conflicting Content-Length headers (${quoted(seen.first!)} and ${quoted(seen.conflict)}): the body's length is ambiguous; send one Content-Length`);
}
