// GET /.well-known/music-license-key (no key, free): the public key that verifies license
// certificates, as a JWK Set (RFC 7517) of one Ed25519 key (RFC 8037) whose kid is a certificate's
// key_id. Made once at start: the key does not change while the process runs.
import { jsonReply, type Reply } from '../http/reply.ts';
import type { SigningKey } from '../../billing/license-signing-key.ts';
import type { JwkSet } from '../../billing/license-signature.ts';

export const LICENSE_KEY_PATH = '/.well-known/music-license-key';
const CACHE_SECONDS = 3600;

export function licenseKeyReply(key: SigningKey): () => Reply {
  const keys: JwkSet = { keys: [key.publicJwk] };
  const reply = jsonReply(keys, 200, { 'Content-Type': 'application/jwk-set+json', 'Cache-Control': `public, max-age=${CACHE_SECONDS}` });
  return () => reply;
}
