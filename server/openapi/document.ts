// The OpenAPI 3.1 document of the API: the one description of every endpoint, parameter, body,
// response, header and error code. Served at GET /api/external/v1/openapi.json, rendered at
// /docs, turned into the client's types (npm run client:types), and checked against real
// responses by test/openapi-conformance.test.ts. Each part lives beside its kind: headers.ts,
// errors.ts, schemas.ts, paths/*.ts.
import type { OpenApiDocument } from './types.ts';
import { API_BASE } from '../http/app.ts';
import { errorResponse } from './errors.ts';
import { headers } from './headers.ts';
import { schemas } from './schemas.ts';
import { accountPaths } from './paths/account.ts';
import { searchPaths } from './paths/search.ts';
import { downloadPaths } from './paths/downloads.ts';
import { trackPaths } from './paths/tracks.ts';
import { publicPaths } from './paths/public.ts';
import { licensePaths } from './paths/licenses.ts';
import { licenseSchemas } from './license-schemas.ts';

const DESCRIPTION = `
Search a catalog of cleared music in everyday words and download tracks in full or as clips cut on
musical boundaries, with the track's climax landing on the second you ask for. Every download
includes a perpetual sync license.

**Authentication**: \`Authorization: Bearer <API_KEY>\` on every endpoint except those marked "No key".

**Credits and limits**: \`POST /search\`, \`POST /download-track\` and \`GET /tracks/{id}/similar\` cost
1 credit, charged only on success; everything else is free. Every download grants a perpetual sync
license, named by \`X-License-Id\` and kept as a signed certificate (\`GET /licenses/{id}\`). Every authenticated request counts
against the key's per-minute and per-day limits (fixed UTC windows), whatever its status, except
those refused with 429. Responses to an admitted key carry \`X-RateLimit-*\`, \`X-Credits-Remaining\`
and the IETF \`RateLimit-Policy\`/\`RateLimit\` fields.

**Errors** are \`{"error", "code", "message", "request_id"}\` with a stable \`code\`; every response has an
\`X-Request-Id\` equal to the body's \`request_id\`. Checks run in this order: key (401), rate limit
(429), body and parameters (400/413), credits (402), the work. An unknown path is a 404 and a wrong
method a 405 with \`Allow\`, on any path.

**Retries** (spec section 7): on 429 wait \`Retry-After\` seconds, then retry; never retry 402 until
credits are restored; retry 500 and 503 after a short delay (503 carries \`Retry-After\`). Send an
\`Idempotency-Key\` on paid requests you may retry: a repeat is answered without a second charge.
The typed client in \`client/\` follows these rules.
`.trim();

export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Music Licensing API',
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: API_BASE, description: 'This server (same origin)' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Search', description: 'Finding tracks.' },
      { name: 'Audio', description: 'Downloads and the plans clips are cut by.' },
      { name: 'Tracks', description: 'What the audio engine measured.' },
      { name: 'Account', description: 'The calling key.' },
      { name: 'Licenses', description: 'The licenses downloads grant, as signed certificates.' },
      { name: 'Public', description: 'No key needed.' },
    ],
    paths: { ...searchPaths, ...downloadPaths, ...trackPaths, ...accountPaths, ...licensePaths, ...publicPaths },
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `mla_` and 43 URL-safe characters (`npm run keys -- create`).' },
      },
      schemas: { ...schemas, ...licenseSchemas },
      headers,
      responses: {
        UnknownPath: errorResponse('not_found', 'none', 'No endpoint at this path (any path the document does not list).'),
        MethodNotAllowed: errorResponse('method_not_allowed', 'none', 'The path exists, not with this method.'),
      },
    },
  };
}

/** Built once: the document never changes while the server runs. */
export const openApiDocument = buildOpenApiDocument();
