// Reason phrases from node:http's table (RFC 9110's names); uWS wants the whole "200 OK", not 200.
import { STATUS_CODES } from 'node:http';

// A status we send that Node does not name (499: the client went away) still needs a phrase.
const UNNAMED = 'Unknown';

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? UNNAMED;
}

// Made once per status: every response writes one.
const lines = new Map<number, string>();

export function statusLine(status: number): string {
  let line = lines.get(status);
  if (line === undefined) lines.set(status, (line = `${status} ${reasonPhrase(status)}`));
  return line;
}
