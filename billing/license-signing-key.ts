// The Ed25519 key that signs license certificates. From LICENSE_SIGNING_KEY when set (a PKCS#8
// private key: PEM, or its DER in base64); otherwise made once and kept in the database
// (signing_keys), so it survives restarts and every server process on one database signs with
// the same key. Processes that start at once each offer a new key and all keep the one that won.
import crypto, { type KeyObject } from 'node:crypto';
import type { Sql } from '../db/connect.ts';
import { canonicalJson } from './canonical-json.ts';

const PURPOSE = 'license-certificates';

/** The public half as a JWK (RFC 8037), with its key id. */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface SigningKey {
  privateKey: KeyObject;
  keyId: string;
  publicJwk: PublicJwk;
}

/** The signing key of this database (or of the environment); see the top of this file. */
export async function loadSigningKey(sql: Sql, fromEnvironment: string | undefined): Promise<SigningKey> {
  if (fromEnvironment) return signingKeyOf(parsePrivateKey(fromEnvironment, 'LICENSE_SIGNING_KEY'));
  const offered = signingKeyOf(crypto.generateKeyPairSync('ed25519').privateKey);
  await sql`
    INSERT INTO signing_keys (purpose, key_id, private_key)
    VALUES (${PURPOSE}, ${offered.keyId}, ${offered.privateKey.export({ format: 'der', type: 'pkcs8' })})
    ON CONFLICT (purpose) DO NOTHING`;
  const [row] = await sql<{ private_key: Buffer }[]>`SELECT private_key FROM signing_keys WHERE purpose = ${PURPOSE}`;
  return signingKeyOf(crypto.createPrivateKey({ key: row.private_key, format: 'der', type: 'pkcs8' }));
}

/** A PKCS#8 Ed25519 private key from PEM text or base64 DER; throws naming `source` otherwise. */
export function parsePrivateKey(text: string, source: string): KeyObject {
  let key: KeyObject;
  try {
    key = text.includes('-----BEGIN')
      ? crypto.createPrivateKey(text)
      : crypto.createPrivateKey({ key: Buffer.from(text.trim(), 'base64'), format: 'der', type: 'pkcs8' });
  } catch (err) {
    throw new Error(`${source} is not a PKCS#8 private key (PEM, or DER in base64): ${(err as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${source} is a ${key.asymmetricKeyType} key; an Ed25519 key is needed (openssl genpkey -algorithm ed25519)`);
  return key;
}

function signingKeyOf(privateKey: KeyObject): SigningKey {
  const { x } = crypto.createPublicKey(privateKey).export({ format: 'jwk' });
  const keyId = jwkThumbprint(x!);
  return { privateKey, keyId, publicJwk: { kty: 'OKP', crv: 'Ed25519', x: x!, kid: keyId, alg: 'EdDSA', use: 'sig' } };
}

/** RFC 7638 thumbprint of an Ed25519 public key: SHA-256 of its required members in canonical JSON, base64url. */
export function jwkThumbprint(x: string): string {
  return crypto.createHash('sha256').update(canonicalJson({ crv: 'Ed25519', kty: 'OKP', x })).digest('base64url');
}
