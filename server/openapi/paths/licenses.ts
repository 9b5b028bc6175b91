// GET /licenses, GET /licenses/{id} and the public key that verifies their certificates.
import type { PathItemObject } from '../types.ts';
import { LICENSE_SCOPE } from '../../../billing/license-certificate.ts';
import { responseHeaders } from '../headers.ts';
import { integerQuery, keyedJson, keyedOperation, publicOperation } from './operation.ts';
import { EXAMPLE_TRACK_ID } from './examples.ts';

const exampleLicense = {
  license_id: 'lic_k3v9x2a1_1b', track_id: EXAMPLE_TRACK_ID, title: 'Night Drive', artist: 'Demo Orchestra',
  clip: { duration_seconds: 30, hit_point_seconds: 22.5, start_seconds: 76.25 }, granted_at: '2026-11-23T14:02:11.514Z',
};

export const licensePaths: Record<string, PathItemObject> = {
  '/licenses': {
    get: keyedOperation({
      operationId: 'licenses',
      summary: "The calling key's licenses, newest first",
      description: 'Every successful download granted one. Paged as `/usage` is: a page shorter than `limit` is the last.',
      tag: 'Licenses',
      cost: 0,
      parameters: [integerQuery('limit', 'Licenses per page.', 1, 100, 50), integerQuery('offset', 'Licenses to skip.', 0, 2_147_483_647, 0)],
      success: { 200: keyedJson('A page of licenses.', 'LicensePage', { licenses: [exampleLicense], total_count: 1, offset: 0, limit: 50 }) },
      errors: ['invalid_parameters'],
    }),
  },
  '/licenses/{id}': {
    get: keyedOperation({
      operationId: 'license',
      summary: 'One license as a signed certificate',
      description: 'Signed with Ed25519 over its canonical JSON; verify it with the key at `/.well-known/music-license-key` '
        + '(`npm run licenses -- verify FILE`). A malformed id is a 400; another key\'s license, like an unknown one, a 404.',
      tag: 'Licenses',
      cost: 0,
      parameters: [{ name: 'id', in: 'path', required: true, description: 'A license id (`X-License-Id` of a download).', schema: { type: 'string' }, example: 'lic_k3v9x2a1_1b' }],
      success: {
        200: keyedJson('The signed certificate.', 'SignedCertificate', {
          certificate: { format: 'music-license-certificate/1', issuer: 'Music Licensing API', ...exampleLicense, key_prefix: 'mla_AbCdEfGh', scope: LICENSE_SCOPE },
          algorithm: 'Ed25519', key_id: 'm2Jq0y0bV7nT3kz9cX1a4fQe8rS5uW6tY2pL0oN3hG4', signature: 'A'.repeat(86),
        }),
      },
      errors: ['invalid_parameters', 'not_found'],
    }),
  },
  '/.well-known/music-license-key': {
    servers: [{ url: '/', description: 'The same origin, outside the API base path' }],
    get: publicOperation({
      operationId: 'licenseKey',
      summary: 'The public key that verifies license certificates',
      description: 'A JWK Set of one Ed25519 key whose `kid` is a certificate\'s `key_id`; keep a copy to verify certificates offline.',
      tag: 'Licenses',
      success: {
        200: {
          description: 'The key set.',
          headers: responseHeaders(['X-Request-Id', 'Cache-Control']),
          content: {
            'application/jwk-set+json': {
              schema: { $ref: '#/components/schemas/JwkSet' },
              example: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'm2Jq0y0bV7nT3kz9cX1a4fQe8rS5uW6tY2pL0oN3hG4', alg: 'EdDSA', use: 'sig' }] },
            },
          },
        },
      },
      errors: [],
    }),
  },
};
