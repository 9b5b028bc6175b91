// `npm run licenses -- verify FILE (--key KEYFILE | --server URL)`: checks a saved license
// certificate (the JSON of GET /licenses/{id}) against the public key, offline with --key (a saved
// /.well-known/music-license-key, or one JWK of it) or fetched from a server with --server.
// Prints "valid" or "invalid: <reason>"; exits 0 when valid, 1 when invalid, 2 when the inputs
// cannot be read (usage, a missing file, a server that does not answer).
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { runCommand, usageError } from '../db/command-line.ts';
import { parseJwkSet, verifyCertificate, type JwkSet } from './license-signature.ts';

const USAGE = `usage:
  npm run licenses -- verify CERTIFICATE.json --key KEY.json     (a saved /.well-known/music-license-key)
  npm run licenses -- verify CERTIFICATE.json --server URL       (e.g. http://localhost:8080)`;
const KEY_PATH = '/.well-known/music-license-key';
const FETCH_TIMEOUT_MS = 10_000;
const INPUT_ERROR = 2;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { key: { type: 'string' }, server: { type: 'string' } } });
  const [command, file, ...extra] = positionals;
  if (command !== 'verify') return usageError(`unknown command "${command ?? ''}"`, USAGE);
  if (!file || extra.length > 0) return usageError('verify needs one certificate file', USAGE);
  if ((values.key === undefined) === (values.server === undefined)) return usageError('give the public key with either --key FILE or --server URL', USAGE);
  let document: unknown;
  let keys: JwkSet;
  try {
    document = JSON.parse(fs.readFileSync(file, 'utf8'));
    keys = values.key !== undefined ? parseJwkSet(fs.readFileSync(values.key, 'utf8')) : await fetchKeys(values.server!);
  } catch (err) {
    console.error(`cannot read the inputs: ${(err as Error).message}`);
    return INPUT_ERROR;
  }
  const verification = verifyCertificate(document, keys);
  if (!verification.valid) {
    console.log(`invalid: ${verification.reason}`);
    return 1;
  }
  console.log(`valid (signed by key ${verification.keyId})`);
  return 0;
}

async function fetchKeys(server: string): Promise<JwkSet> {
  const url = new URL(KEY_PATH, server);
  const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return parseJwkSet(await response.text());
}

runCommand(main);
