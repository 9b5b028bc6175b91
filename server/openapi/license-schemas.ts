// The license schemas (components.schemas): a license as its key lists it, the signed certificate
// of one, and the public key set that verifies certificates offline.
import type { SchemaObject } from './types.ts';
import { CERTIFICATE_FORMAT, LICENSE_SCOPE } from '../../billing/license-certificate.ts';
import { SIGNATURE_ALGORITHM } from '../../billing/license-signature.ts';

const LICENSE_ID = { type: 'string', pattern: '^lic_[A-Za-z0-9_-]{8}_[0-9a-z]{1,13}$', examples: ['lic_k3v9x2a1_1b'] };
const strings: SchemaObject = { type: 'array', items: { type: 'string' } };
const nullableSeconds: SchemaObject = { type: ['number', 'null'], minimum: 0 };

function closed(required: string[], properties: Record<string, SchemaObject>, description?: string): SchemaObject {
  return { type: 'object', ...(description ? { description } : {}), required, additionalProperties: false, properties };
}

const licenseFields: Record<string, SchemaObject> = {
  license_id: { ...LICENSE_ID, description: 'Named after the download request that granted it (`X-License-Id`).' },
  track_id: { type: 'string', pattern: '^trk_[0-9a-f]{16}$' },
  title: { type: 'string' },
  artist: { type: 'string' },
  clip: {
    description: 'The clip licensed; null for the full track.',
    oneOf: [
      { type: 'null' },
      closed(['duration_seconds', 'hit_point_seconds', 'start_seconds'], {
        duration_seconds: { type: 'number', minimum: 0 },
        hit_point_seconds: nullableSeconds,
        start_seconds: { ...nullableSeconds, description: 'Where the clip begins in the track.' },
      }),
    ],
  },
  granted_at: { type: 'string', format: 'date-time' },
};
const LICENSE_REQUIRED = Object.keys(licenseFields);

const scope = closed(Object.keys(LICENSE_SCOPE), {
  license: { type: 'string' }, term: { type: 'string' }, territory: { type: 'string' }, audience: { type: 'string' },
  covered_uses: strings, excluded_uses: strings,
}, 'What the license allows and excludes (spec 1, rules 3-4), in words.');

const certificate = closed(['format', 'issuer', ...LICENSE_REQUIRED, 'key_prefix', 'scope'], {
  format: { type: 'string', const: CERTIFICATE_FORMAT },
  issuer: { type: 'string' },
  ...licenseFields,
  key_prefix: { type: 'string', description: 'The display prefix of the API key that downloaded (never the whole key).' },
  scope,
});

export const licenseSchemas: Record<string, SchemaObject> = {
  License: closed(LICENSE_REQUIRED, licenseFields, 'A license a download granted (spec 1, rule 2).'),
  LicensePage: closed(['licenses', 'total_count', 'offset', 'limit'], {
    licenses: { type: 'array', items: { $ref: '#/components/schemas/License' }, description: 'Newest first. A page shorter than `limit` is the last.' },
    total_count: { type: 'integer', minimum: 0 },
    offset: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
  }),
  Certificate: certificate,
  SignedCertificate: closed(['certificate', 'algorithm', 'key_id', 'signature'], {
    certificate: { $ref: '#/components/schemas/Certificate' },
    algorithm: { type: 'string', const: SIGNATURE_ALGORITHM },
    key_id: { type: 'string', description: 'The `kid` of the verifying key at `/.well-known/music-license-key`.' },
    signature: { type: 'string', pattern: '^[A-Za-z0-9_-]{86}$', description: 'Ed25519 signature (base64url, no padding) of the certificate in canonical JSON (RFC 8785).' },
  }, 'A license certificate: keep it to show what a download licensed; anyone can verify it offline with the public key.'),
  JwkSet: closed(['keys'], {
    keys: {
      type: 'array', minItems: 1,
      items: closed(['kty', 'crv', 'x', 'kid', 'alg', 'use'], {
        kty: { type: 'string', const: 'OKP' }, crv: { type: 'string', const: 'Ed25519' }, x: { type: 'string' },
        kid: { type: 'string' }, alg: { type: 'string', const: 'EdDSA' }, use: { type: 'string', const: 'sig' },
      }),
    },
  }, 'The public keys that verify license certificates (RFC 7517 JWK Set of Ed25519 keys, RFC 8037).'),
};
