// The response and request headers of the API as OpenAPI header objects (components.headers), and
// the sets each kind of response carries. Header values are strings on the wire; a schema of type
// integer or number means the header holds that number written out.
import type { HeaderObject, ParameterObject, ReferenceObject } from './types.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../../billing/idempotency.ts';

const count = { type: 'integer', minimum: 0 } as const;
const countOrUnlimited = { oneOf: [count, { type: 'string', const: 'unlimited' }] } as const;
// One structured-field list member per window: "minute" and, when the tier has one, "day".
const POLICY_MEMBER = '"[a-z]+";q=\\d+;w=\\d+';
const LIMIT_MEMBER = '"[a-z]+";r=\\d+;t=\\d+';

export const headers: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description: 'Unique id of this request; the same value as `request_id` in an error body. Quote it when reporting a problem.',
    schema: { type: 'string', pattern: '^req_[A-Za-z0-9_-]+$' }, example: 'req_k3v9x2a1f_1b',
  },
  'X-RateLimit-Limit': { description: 'Requests allowed per minute (spec 8.3).', schema: { type: 'integer', minimum: 1 }, example: 10 },
  'X-RateLimit-Remaining': { description: 'Requests left in the current UTC minute; 0 on a 429.', schema: count, example: 9 },
  'X-RateLimit-Limit-Daily': { description: 'Requests allowed per UTC day, or `unlimited` (pro).', schema: countOrUnlimited, example: 1000 },
  'X-RateLimit-Remaining-Daily': { description: 'Requests left in the current UTC day, or `unlimited`.', schema: countOrUnlimited, example: 999 },
  'X-Credits-Remaining': { description: "The key's credit balance right after this request's own charge or refund.", schema: count, example: 299 },
  'RateLimit-Policy': {
    description: 'The rate-limit policies of the key (draft-ietf-httpapi-ratelimit-headers-10): one structured-field list member per window, '
      + '`"minute"` (w=60) and, unless the tier has no daily limit, `"day"` (w=86400), with its quota `q` in requests.',
    schema: { type: 'string', pattern: `^${POLICY_MEMBER}(, ${POLICY_MEMBER})*$` }, example: '"minute";q=10;w=60, "day";q=1000;w=86400',
  },
  RateLimit: {
    description: 'What is left of each policy of `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-10): remaining requests `r` '
      + 'and seconds `t` until the window ends (UTC calendar minute or day). Agrees with the `X-RateLimit-*` headers.',
    schema: { type: 'string', pattern: `^${LIMIT_MEMBER}(, ${LIMIT_MEMBER})*$` }, example: '"minute";r=9;t=42, "day";r=999;t=35142',
  },
  'Retry-After': { description: 'Seconds to wait before retrying (spec 7 rule 1).', schema: { type: 'integer', minimum: 0 }, example: 2 },
  'Idempotent-Replayed': { description: 'Present on a reply replayed for a repeated `Idempotency-Key`; nothing was charged.', schema: { type: 'string', const: 'true' } },
  Allow: { description: 'The methods the path accepts.', schema: { type: 'string' }, example: 'POST' },
  'X-Track-Id': { description: 'The downloaded track.', schema: { type: 'string', pattern: '^trk_[0-9a-f]{16}$' }, example: 'trk_3f9a1c0b7d2e4a68' },
  'X-Track-Duration': { description: 'Length of the returned audio in whole seconds (the clip, for a clip).', schema: count, example: 30 },
  'X-Clip-Start': { description: "Where the clip's first part starts in the track, seconds (3 decimals).", schema: { type: 'number', minimum: 0 }, example: 41.213 },
  'X-Hit-Point': { description: "Where the track's dominant peak plays in the clip, seconds; absent when the peak is not in the clip.", schema: { type: 'number', minimum: 0 }, example: 22.5 },
  'X-Hit-Point-Landing': {
    description: 'An edit with a hit point: `sure` when the track\'s peak plays within 25 ms of H, else `miss` (`hit_point_landing` of `POST /clip-plan`).',
    schema: { type: 'string', enum: ['sure', 'miss'] }, example: 'sure',
  },
  'X-Clip-Plan': {
    description: 'The clip\'s plan as a JSON array of `[clip_start, source_start, length]` triples in seconds (3 decimals), in clip order: '
      + 'the `parts` of `POST /clip-plan` for the same body.',
    schema: { type: 'string', pattern: '^\\[\\[.*\\]\\]$' }, example: '[[0,41.213,30]]',
  },
  'X-License-Id': {
    description: 'The license this download granted (on a replay, the first request\'s); its certificate is at `GET /licenses/{id}`.',
    schema: { type: 'string', pattern: '^lic_[A-Za-z0-9_-]{8}_[0-9a-z]{1,13}$' }, example: 'lic_k3v9x2a1_1b',
  },
  'Content-Disposition': {
    description: 'An ASCII `filename` and the exact title in `filename*` (RFC 5987).',
    schema: { type: 'string', pattern: '^attachment; filename=' }, example: 'attachment; filename="Night Drive.mp3"; filename*=UTF-8\'\'Night%20Drive.mp3',
  },
  'Content-Length': { description: 'Bytes of the body.', schema: count, example: 482304 },
  ETag: { description: 'Entity tag of the preview audio.', schema: { type: 'string' }, example: '"9f86d081884c7d659a2feaa0c55ad015"' },
  'Cache-Control': {
    description: 'How long the reply may be kept: a preview until its link expires (at most 1 h), the license key 1 h, the docs page not at all.',
    schema: { type: 'string' }, example: 'public, max-age=3600, immutable',
  },
  'Accept-Ranges': { description: 'Single byte ranges are served.', schema: { type: 'string', const: 'bytes' } },
  'Content-Range': { description: 'The bytes of a partial reply, or `bytes */SIZE` on a 416.', schema: { type: 'string', pattern: '^bytes ' }, example: 'bytes 0-1023/482304' },
  'Content-Security-Policy': { description: 'Only the page\'s own origin.', schema: { type: 'string' } },
  'X-Content-Type-Options': { description: 'On every response: the body is only ever the type `Content-Type` says.', schema: { type: 'string', const: 'nosniff' } },
};

export type HeaderName = keyof typeof headers;

function ref(name: string, required: boolean): HeaderObject | ReferenceObject {
  const reference = { $ref: `#/components/headers/${name}` };
  // A $ref sibling cannot say `required`; a required header is a small object of its own.
  return required ? { ...headers[name], required: true } : reference;
}

/** Header objects for a response: the names listed as required, then the optional ones; X-Content-Type-Options on every one. */
export function responseHeaders(required: string[], optional: string[] = []): Record<string, HeaderObject | ReferenceObject> {
  const made: Record<string, HeaderObject | ReferenceObject> = {};
  for (const name of [...required, 'X-Content-Type-Options']) made[name] = ref(name, true);
  for (const name of optional) made[name] = ref(name, false);
  return made;
}

/** Spec 8.3's headers and the IETF draft's, on every response to a key that was admitted. */
export const LIMIT_HEADERS = [
  'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Limit-Daily', 'X-RateLimit-Remaining-Daily', 'X-Credits-Remaining',
  'RateLimit-Policy', 'RateLimit',
];

export const idempotencyKeyParameter: ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: `Makes a retry safe (Stripe's semantics): the same key with the same body within 24 h replays the first reply `
    + '(`Idempotent-Replayed: true`) and charges nothing; with a different body it is a 422; while the first is in flight a 409. '
    + 'A failed request releases its key. A UUID per logical request is a good choice.',
  schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: '^[\\x21-\\x7e]+$' },
  example: '5f0c6a52-3d4e-4a8b-9a3e-2b1f0c9d8e7a',
};
