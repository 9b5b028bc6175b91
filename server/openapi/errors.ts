// The error shape of every failure, its stable codes, and the response objects that carry them.
import { STATUS_CODES } from 'node:http';
import type { ResponseObject, SchemaObject } from './types.ts';
import { LIMIT_HEADERS, responseHeaders } from './headers.ts';

/** Every code the API answers with, and its status (docs/api.md "Errors"). */
export const ERROR_STATUS = {
  invalid_parameters: 400,
  malformed_request: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_in_flight: 409,
  payload_too_large: 413,
  range_not_satisfiable: 416,
  idempotency_key_reused: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const errorSchema: SchemaObject = {
  type: 'object',
  description: 'Every error: a reason phrase, a stable snake_case `code` to branch on, a human `message`, and the request id.',
  required: ['error', 'code', 'message', 'request_id'],
  additionalProperties: false,
  properties: {
    error: { type: 'string', description: 'The HTTP reason phrase, e.g. "Bad Request".' },
    code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
    message: { type: 'string', description: 'What went wrong and how to fix it, for humans.' },
    request_id: { type: 'string', pattern: '^req_[A-Za-z0-9_-]+$', description: 'Equal to the `X-Request-Id` header.' },
    retry_after: { type: 'integer', minimum: 0, description: 'On 429 and most 503s: the `Retry-After` seconds.' },
    feasible_range: {
      type: 'object', required: ['min', 'max'], additionalProperties: false,
      description: 'On a 400 for a clip that cannot be made: the range of the parameter that would work, seconds.',
      properties: { min: { type: 'number' }, max: { type: 'number' } },
    },
  },
};

/** What each code's example says; messages are those the server writes. */
const EXAMPLES: Record<ErrorCode, { message: string; extra?: Record<string, unknown> }> = {
  invalid_parameters: { message: 'hit_point_seconds requires duration_seconds' },
  malformed_request: { message: 'conflicting Content-Length headers ("14" and "96"): the body\'s length is ambiguous; send one Content-Length' },
  unauthorized: { message: 'missing Authorization header; send "Authorization: Bearer <API_KEY>"' },
  insufficient_credits: { message: 'insufficient credits: balance is 0, this request costs 1' },
  forbidden: { message: 'intent extraction is a paid-plan feature (starter or pro); this key is on the free tier. Plain search works without "intent": true' },
  not_found: { message: 'no track "trk_0000000000000000" in the catalog' },
  method_not_allowed: { message: 'method GET not allowed on /api/external/v1/search; use POST' },
  idempotency_key_in_flight: { message: 'a request with Idempotency-Key "k1" is still in progress; retry after it has finished', extra: { retry_after: 1 } },
  payload_too_large: { message: 'request body exceeds 65536 bytes' },
  range_not_satisfiable: { message: 'range "bytes=999999-" is outside the 482304 bytes of this preview' },
  idempotency_key_reused: { message: 'Idempotency-Key "k1" was used for a different request in the last 24 h; use a new key for a new request' },
  rate_limited: { message: 'per-minute rate limit exceeded; retry after 17 s', extra: { retry_after: 17 } },
  headers_too_large: { message: 'request line and headers are 5120 bytes; at most 4096 are accepted' },
  internal_error: { message: 'internal server error; retry after a short delay' },
  service_unavailable: { message: 'the database is unavailable; nothing was charged; retry after 2 s', extra: { retry_after: 2 } },
};

const DESCRIPTIONS: Record<ErrorCode, string> = {
  invalid_parameters: 'Invalid parameters or body (the message names the field); costs nothing.',
  malformed_request: 'The request cannot be framed safely (e.g. two different Content-Length headers); the connection is closed.',
  unauthorized: 'Missing, malformed, unknown, expired or revoked API key.',
  insufficient_credits: 'No credits left. Do not retry until credits are restored (spec 7 rule 2).',
  forbidden: 'The key may not do this (e.g. intent extraction on the free tier), or a preview link is wrong or expired.',
  not_found: 'No such resource (an unknown or removed track, an unknown path).',
  method_not_allowed: 'The path exists but not with this method; `Allow` lists the methods.',
  idempotency_key_in_flight: 'A request with this Idempotency-Key is still being worked on: retry after `Retry-After`.',
  payload_too_large: 'The body is over 64 KiB.',
  range_not_satisfiable: 'The byte range is outside the preview.',
  idempotency_key_reused: 'This Idempotency-Key was used for a different request in the last 24 h.',
  rate_limited: 'Rate limit exceeded: wait `Retry-After` seconds, then retry (spec 7 rule 1).',
  headers_too_large: 'The request line and headers are over 4 KiB.',
  internal_error: 'Server failure; may be retried after a short delay (spec 7 rule 3).',
  service_unavailable: 'Temporarily unavailable (database away, audio engine at capacity, shutting down); nothing was charged. Retry after `Retry-After`.',
};

export function errorExample(code: ErrorCode): Record<string, unknown> {
  const { message, extra } = EXAMPLES[code];
  return { error: STATUS_CODES[ERROR_STATUS[code]], code, message, request_id: 'req_k3v9x2a1f_1b', ...extra };
}

/** Which rate-limit headers a response carries: after admission all of them, before it none. */
export type LimitHeaders = 'required' | 'optional' | 'none';

/** The headers an error reply has beyond X-Request-Id. */
function extraHeaders(code: ErrorCode): { required: string[]; optional: string[] } {
  if (code === 'rate_limited' || code === 'idempotency_key_in_flight') return { required: ['Retry-After'], optional: [] };
  if (code === 'service_unavailable') return { required: [], optional: ['Retry-After'] };
  if (code === 'method_not_allowed') return { required: ['Allow'], optional: [] };
  if (code === 'range_not_satisfiable') return { required: ['Content-Range'], optional: [] };
  return { required: [], optional: [] };
}

/**
 * The response for one error code. `limits`: whether the rate-limit headers are there (keyed
 * requests past admission: required; a 500 or 503 may come before or after admission: optional).
 */
export function errorResponse(code: ErrorCode, limits: LimitHeaders, description = DESCRIPTIONS[code]): ResponseObject {
  const extra = extraHeaders(code);
  const required = ['X-Request-Id', ...extra.required, ...(limits === 'required' ? LIMIT_HEADERS : [])];
  const optional = [...extra.optional, ...(limits === 'optional' ? LIMIT_HEADERS : [])];
  const schema: SchemaObject = {
    type: 'object',
    allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: { code: { const: code } } }],
    ...(code === 'rate_limited' ? { required: ['retry_after'] } : {}),
  };
  return {
    description,
    headers: responseHeaders(required, optional),
    content: { 'application/json': { schema, example: errorExample(code) } },
  };
}
