// Signing and verifying license certificates. The document a client keeps is
//   {"certificate": {...}, "algorithm": "Ed25519", "key_id": "...", "signature": "..."}
// where signature is the Ed25519 signature (RFC 8032), base64url without padding, of the UTF-8
// bytes of canonicalJson(certificate) (RFC 8785 JCS: sorted keys, no whitespace), and key_id names
// the key in the JWK Set at /.well-known/music-license-key (an RFC 7638 thumbprint). Verifying
// needs only that key: these functions do no I/O, and the CLI and the tests share them.
import crypto from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import type { PublicJwk, SigningKey } from './license-signing-key.ts';

export const SIGNATURE_ALGORITHM = 'Ed25519';
const SIGNATURE_BYTES = 64;

export interface SignedCertificate {
  certificate: object;
  algorithm: typeof SIGNATURE_ALGORITHM;
  key_id: string;
  signature: string;
}

/** The public keys, as served at /.well-known/music-license-key. */
export interface JwkSet {
  keys: PublicJwk[];
}

export function signCertificate(certificate: object, key: SigningKey): SignedCertificate {
  const signature = crypto.sign(null, Buffer.from(canonicalJson(certificate)), key.privateKey).toString('base64url');
  return { certificate, algorithm: SIGNATURE_ALGORITHM, key_id: key.keyId, signature };
}

export type Verification = { valid: true; keyId: string } | { valid: false; reason: string };

/** Whether `document` (a parsed certificate file) is signed by one of `keys`; the reason when not. */
export function verifyCertificate(document: unknown, keys: JwkSet): Verification {
  if (!isRecord(document) || !isRecord(document.certificate)) return invalid('not a signed certificate: no "certificate" object');
  const { algorithm, key_id: keyId, signature } = document;
  if (algorithm !== SIGNATURE_ALGORITHM) return invalid(`algorithm must be "${SIGNATURE_ALGORITHM}", got ${JSON.stringify(algorithm)}`);
  if (typeof keyId !== 'string') return invalid('"key_id" is missing');
  if (typeof signature !== 'string') return invalid('"signature" is missing');
  const jwk = keys.keys.find((k) => k.kid === keyId);
  if (!jwk) return invalid(`no public key with id "${keyId}" (known: ${keys.keys.map((k) => k.kid).join(', ') || 'none'})`);
  const bytes = Buffer.from(signature, 'base64url');
  // Node's decoder skips characters outside the alphabet: only the exact encoding is accepted.
  if (bytes.length !== SIGNATURE_BYTES || bytes.toString('base64url') !== signature) return invalid('"signature" is not 64 bytes in base64url');
  let publicKey: crypto.KeyObject;
  try {
    publicKey = crypto.createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  } catch (err) {
    return invalid(`public key "${keyId}" is not a usable Ed25519 JWK: ${(err as Error).message}`);
  }
  if (!crypto.verify(null, Buffer.from(canonicalJson(document.certificate)), publicKey, bytes)) {
    return invalid('the signature does not match the certificate: it was changed, or signed by another key');
  }
  return { valid: true, keyId };
}

/** A JWK Set, or one JWK, from JSON text (a saved /.well-known/music-license-key, or one key of it). */
export function parseJwkSet(text: string): JwkSet {
  const parsed: unknown = JSON.parse(text);
  const keys = isRecord(parsed) && Array.isArray(parsed.keys) ? parsed.keys : [parsed];
  for (const key of keys) {
    if (!isRecord(key) || key.kty !== 'OKP' || key.crv !== 'Ed25519' || typeof key.x !== 'string' || typeof key.kid !== 'string') {
      throw new Error('expected a JWK Set ({"keys": [...]}) or a JWK with kty "OKP", crv "Ed25519", x and kid');
    }
  }
  return { keys: keys as PublicJwk[] };
}

function invalid(reason: string): Verification {
  return { valid: false, reason };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
