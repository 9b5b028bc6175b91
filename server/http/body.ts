// Reads a request body within a byte limit. Must be called synchronously in the uWS handler,
// before any await: uWS delivers body chunks only to a handler registered at once.
import type { HttpResponse } from 'uWebSockets.js';
import { ApiError } from './api-error.ts';

export const MAX_BODY_BYTES = 64 * 1024;
/**
 * The deepest nesting of arrays and objects a JSON body may have. No request of the API nests
 * more than 3 levels; a deeper body is refused before it is parsed, so no validation, message
 * or fingerprint ever walks a value deep enough to overflow the stack.
 */
export const MAX_BODY_DEPTH = 32;

export function payloadTooLarge(): ApiError {
  return new ApiError(413, 'payload_too_large', `request body exceeds ${MAX_BODY_BYTES} bytes`);
}

/** Something that calls a listener with a reason when the client goes away. */
export interface ClientWatch {
  onGone(listener: (reason: unknown) => void): void;
}

const EMPTY = Buffer.alloc(0);

/**
 * `transferEncoding`: the request's Transfer-Encoding header ('' when absent). A request with
 * neither it nor a Content-Length, or with Content-Length 0, has an empty body: resolved at once,
 * since uWS calls no data handler for it when the head came in more than one read.
 */
export function readBody(res: HttpResponse, contentLength: string, client: ClientWatch, limit = MAX_BODY_BYTES, transferEncoding = ''): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.onGone(reject);
    if (contentLength === '0' || (contentLength === '' && transferEncoding === '')) {
      res.onData(() => {});
      resolve(EMPTY);
      return;
    }
    if (contentLength !== '' && Number(contentLength) > limit) {
      // Answer without reading: the connection is closed after the error, so the rest is never read.
      res.onData(() => {});
      reject(payloadTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed) return;
      size += chunk.byteLength;
      if (size > limit) {
        failed = true;
        reject(payloadTooLarge());
        return;
      }
      // uWS reuses the chunk's memory after this callback returns: copy it (into Buffer's pool
      // when small, which chunk.slice(0), a new ArrayBuffer each time, is not).
      chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
  });
}

const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count). */
export function jsonDepth(body: Buffer): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) deepest = Math.max(deepest, ++depth);
    else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--;
  }
  return deepest;
}

/** Bytes that are not UTF-8 are refused, not read as U+FFFD: what the client meant is unknown. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Where in a parsed body a string (a value or a key) holds U+0000, as a path ("track_id",
 * "filters.moods[2]"); undefined when none does. No field accepts it, and PostgreSQL text cannot
 * store it. The body's depth is bounded (MAX_BODY_DEPTH), so the walk is too.
 */
export function nulCharacterAt(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulCharacterAt(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes('\0')) return `the name of field ${JSON.stringify(at)}`;
    const found = nulCharacterAt(item, at);
    if (found) return found;
  }
  return undefined;
}

/**
 * Parses a JSON object body; anything else is a 400 invalid_parameters. The one guard every
 * route's body passes before validation: its size was bounded while it was read (readBody), its
 * depth, its encoding (UTF-8) and its strings (no NUL) are checked here.
 */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  if (body.byteLength === 0) throw new ApiError(400, 'invalid_parameters', 'request body is empty; expected a JSON object');
  const depth = jsonDepth(body);
  if (depth > MAX_BODY_DEPTH) {
    throw new ApiError(400, 'invalid_parameters', `request body is nested ${depth} levels deep; at most ${MAX_BODY_DEPTH} levels of arrays and objects are accepted`);
  }
  let text: string;
  try {
    text = STRICT_UTF8.decode(body);
  } catch {
    throw new ApiError(400, 'invalid_parameters', 'request body is not valid UTF-8; JSON must be sent as UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, 'invalid_parameters', `malformed JSON body: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError(400, 'invalid_parameters', 'request body must be a JSON object');
  }
  const nul = nulCharacterAt(value);
  if (nul) throw new ApiError(400, 'invalid_parameters', `${nul} holds a NUL character (\\u0000), which no field accepts`);
  return value as Record<string, unknown>;
}
