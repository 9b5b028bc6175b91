// What needs no key: preview audio behind signed links, the health check, this document and its
// reference page. /healthz and /docs live outside the API's base path (their own `servers`).
import type { ParameterObject, PathItemObject, ResponseObject } from '../types.ts';
import { responseHeaders } from '../headers.ts';
import { EXAMPLE_TRACK_ID } from './examples.ts';
import { publicOperation } from './operation.ts';

const ORIGIN_ROOT = [{ url: '/', description: 'The same origin, outside the API base path' }];

const previewParameters: ParameterObject[] = [
  { name: 'track_id', in: 'path', required: true, schema: { type: 'string' }, example: EXAMPLE_TRACK_ID },
  { name: 'exp', in: 'query', required: true, description: 'Expiry of the link, Unix seconds (from `preview_url`).', schema: { type: 'string', pattern: '^\\d+$' } },
  { name: 'sig', in: 'query', required: true, description: 'HMAC signature of the link (from `preview_url`).', schema: { type: 'string' } },
  { name: 'Range', in: 'header', required: false, description: 'One byte range, e.g. `bytes=0-1023`.', schema: { type: 'string' } },
  { name: 'If-None-Match', in: 'header', required: false, description: 'The `ETag` of a copy held: 304 when it still matches.', schema: { type: 'string' } },
];

const previewAudio = (description: string, extra: string[] = []): ResponseObject => ({
  description,
  headers: responseHeaders(['X-Request-Id', 'Accept-Ranges', 'ETag', 'Cache-Control', ...extra]),
  content: { 'audio/mpeg': { schema: { type: 'string', contentMediaType: 'audio/mpeg' } } },
});

const health = (description: string, status: 'ok' | 'degraded'): ResponseObject => ({
  description,
  headers: responseHeaders(['X-Request-Id']),
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Health' },
      example: {
        status,
        database: { status: status === 'ok' ? 'ok' : 'unreachable', embedded: true, latency_ms: 0.41 },
        workers: { status: 'ok', threads: 2, queued: 0, max_queue: 32, completed: 118, utilization: 0.031 },
      },
    },
  },
});

export const publicPaths: Record<string, PathItemObject> = {
  '/previews/{track_id}.mp3': {
    get: publicOperation({
      operationId: 'preview',
      summary: 'The 30 s preview of a track',
      description: 'Behind the signed, expiring link a track\'s `preview_url` gives (24 h). A wrong or expired signature is a 403. '
        + 'Single byte ranges (206, 416) and `If-None-Match` (304) are supported.',
      tag: 'Public',
      parameters: previewParameters,
      success: {
        200: previewAudio('The preview MP3.'),
        206: previewAudio('The bytes asked for.', ['Content-Range']),
        304: { description: 'The copy held is current.', headers: responseHeaders(['X-Request-Id', 'ETag', 'Cache-Control']) },
      },
      errors: ['forbidden', 'not_found', 'range_not_satisfiable'],
    }),
  },
  '/healthz': {
    servers: ORIGIN_ROOT,
    get: publicOperation({
      operationId: 'health',
      summary: 'Database and audio engine status',
      description: 'For load balancers and monitors: 200 when the database answers and the worker pool runs, else 503 with the same body.',
      tag: 'Public',
      success: { 200: health('Healthy.', 'ok'), 503: health('Degraded: the body says which part.', 'degraded') },
      errors: [],
    }),
  },
  '/openapi.json': {
    get: publicOperation({
      operationId: 'openapi',
      summary: 'This document',
      description: 'The OpenAPI 3.1 description of the API, the source of the reference page at `/docs` and of the typed client.',
      tag: 'Public',
      success: {
        200: {
          description: 'The OpenAPI document.',
          headers: responseHeaders(['X-Request-Id']),
          content: {
            'application/json': {
              schema: {
                type: 'object', required: ['openapi', 'info', 'paths'],
                properties: { openapi: { type: 'string', const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
              },
            },
          },
        },
      },
      errors: [],
    }),
  },
  '/docs': {
    servers: ORIGIN_ROOT,
    get: publicOperation({
      operationId: 'docs',
      summary: 'The API reference page',
      description: 'This document rendered for reading and trying out requests, served entirely from this server (no third-party requests).',
      tag: 'Public',
      success: {
        200: {
          description: 'The HTML page.',
          headers: responseHeaders(['X-Request-Id', 'Content-Security-Policy', 'Cache-Control']),
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      },
      errors: [],
    }),
  },
};
