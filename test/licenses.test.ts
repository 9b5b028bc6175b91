// License certificates over real HTTP (issue 19): X-License-Id on downloads, GET /licenses paged
// newest first, GET /licenses/{id} signed and verified with the published key (also by the CLI as
// a child process), tampering detected, another key's license not found.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { climaxPiece } from './support/synth.ts';
import { ingestSignals } from './support/ingest.ts';
import { parseJwkSet, verifyCertificate, type JwkSet } from '../billing/license-signature.ts';
import { loadSigningKey } from '../billing/license-signing-key.ts';
import { LICENSE_SCOPE } from '../billing/license-certificate.ts';
import { loadConfig } from '../server/config.ts';
import { startService } from '../server/service.ts';
import { createLogger } from '../server/observability/logger.ts';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const LICENSE_ID = /^lic_[A-Za-z0-9_-]{8}_[0-9a-z]+$/;

let server: TestServer;
let trackId: string;
let scratch: string;

before(async () => {
  server = await startTestServer();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-licenses-'));
  await ingestSignals({
    sql: server.service.database.sql,
    pool: server.service.engine,
    storage: server.service.storage,
    tracks: [{ file: 'drums.mp3', signal: climaxPiece(120, 45, 25), metadata: { title: 'Licensed "Drums"', artist: 'Test Artist' } }],
  });
  [{ id: trackId }] = await server.service.database.sql`SELECT id FROM tracks`;
});
after(async () => {
  await server.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function download(key: string, body: Record<string, unknown>, idempotencyKey?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const response = await fetch(`${server.base}${API}/download-track`, { method: 'POST', headers, body: JSON.stringify(body) });
  const bytes = await response.arrayBuffer();
  assert.equal(response.status, 200, Buffer.from(bytes).toString());
  return response.headers;
}

async function publishedKeys(): Promise<JwkSet> {
  const response = await fetch(`${server.base}/.well-known/music-license-key`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/jwk-set+json');
  return parseJwkSet(await response.text());
}

test('every download carries X-License-Id; the list pages newest first and stops on the short last page', async () => {
  const key = await server.newKey('pro'); // more requests than starter's 10 a minute
  const ids: string[] = [];
  ids.push((await download(key, { track_id: trackId })).get('x-license-id')!); // full track, streamed
  ids.push((await download(key, { track_id: trackId, duration_seconds: 12 })).get('x-license-id')!); // clip, made
  ids.push((await download(key, { track_id: trackId, duration_seconds: 12 })).get('x-license-id')!); // the same clip, cached
  ids.push((await download(key, { track_id: trackId, duration_seconds: 15, hit_point_seconds: 5 })).get('x-license-id')!);
  ids.push((await download(key, { track_id: trackId, duration_seconds: 20, mode: 'loop' })).get('x-license-id')!);
  for (const id of ids) assert.match(id, LICENSE_ID);
  assert.equal(new Set(ids).size, ids.length, 'one license per download');

  const newestFirst = [...ids].reverse();
  const seen: string[] = [];
  for (let offset = 0; ; offset += 2) {
    const page = await call(server.base, 'GET', `${API}/licenses?limit=2&offset=${offset}`, key);
    assert.equal(page.status, 200);
    assert.equal(page.body.total_count, 5);
    assert.equal(page.body.limit, 2);
    assert.equal(page.body.offset, offset);
    seen.push(...page.body.licenses.map((l: any) => l.license_id));
    if (page.body.licenses.length < page.body.limit) break;
  }
  assert.deepEqual(seen, newestFirst);
  const all = await call(server.base, 'GET', `${API}/licenses`, key);
  assert.equal(all.body.limit, 50);
  const [loop, hit, , , full] = all.body.licenses;
  assert.deepEqual({ ...full, granted_at: undefined }, { license_id: ids[0], track_id: trackId, title: 'Licensed "Drums"', artist: 'Test Artist', clip: null, granted_at: undefined });
  assert.equal(hit.clip.duration_seconds, 15);
  assert.equal(hit.clip.hit_point_seconds, 5);
  assert.equal(typeof hit.clip.start_seconds, 'number');
  assert.equal(loop.clip.duration_seconds, 20);
  assert.equal(loop.clip.hit_point_seconds, null);
  const times = all.body.licenses.map((l: any) => Date.parse(l.granted_at));
  assert.deepEqual(times, [...times].sort((a, b) => b - a));

  // Free: the listing and certificates cost nothing.
  const before = (await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining;
  await call(server.base, 'GET', `${API}/licenses`, key);
  await call(server.base, 'GET', `${API}/licenses/${ids[0]}`, key);
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining, before);
});

test('the list validates limit and offset exactly as /usage does', async () => {
  const key = await server.newKey('pro');
  for (const query of ['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'offset=1.5', 'limit=2&limit=3', 'page=2']) {
    const licenses = await call(server.base, 'GET', `${API}/licenses?${query}`, key);
    const usage = await call(server.base, 'GET', `${API}/usage?${query}`, key);
    assert.equal(licenses.status, 400, query);
    assert.equal(licenses.body.code, 'invalid_parameters');
    assert.equal(licenses.body.message, usage.body.message, query);
  }
  const empty = await call(server.base, 'GET', `${API}/licenses?offset=100`, key);
  assert.deepEqual(empty.body, { licenses: [], total_count: 0, offset: 100, limit: 50 });
});

test('a repeated Idempotency-Key download names the same license, granted once', async () => {
  const key = await server.newKey('starter');
  const first = await download(key, { track_id: trackId, duration_seconds: 11 }, 'lic-test-1');
  const again = await download(key, { track_id: trackId, duration_seconds: 11 }, 'lic-test-1');
  assert.equal(again.get('idempotent-replayed'), 'true');
  assert.match(first.get('x-license-id')!, LICENSE_ID);
  assert.equal(again.get('x-license-id'), first.get('x-license-id'));
  const fullFirst = await download(key, { track_id: trackId }, 'lic-test-2');
  const fullAgain = await download(key, { track_id: trackId }, 'lic-test-2');
  assert.equal(fullAgain.get('x-license-id'), fullFirst.get('x-license-id'));
  const list = await call(server.base, 'GET', `${API}/licenses`, key);
  assert.deepEqual(list.body.licenses.map((l: any) => l.license_id), [fullFirst.get('x-license-id'), first.get('x-license-id')]);
});

test('a certificate verifies with the published key and says what was licensed, to whom, and its scope', async () => {
  const key = await server.newKey('starter');
  const downloadedFrom = Date.now();
  const licenseId = (await download(key, { track_id: trackId, duration_seconds: 15, hit_point_seconds: 5 })).get('x-license-id')!;
  const downloadedBy = Date.now();
  const response = await call(server.base, 'GET', `${API}/licenses/${licenseId}`, key);
  assert.equal(response.status, 200);
  const document = response.body;
  const keys = await publishedKeys();
  assert.deepEqual(verifyCertificate(document, keys), { valid: true, keyId: keys.keys[0].kid });
  assert.equal(document.algorithm, 'Ed25519');
  assert.equal(document.key_id, keys.keys[0].kid);
  const { certificate } = document;
  assert.equal(certificate.license_id, licenseId);
  assert.equal(certificate.track_id, trackId);
  assert.equal(certificate.title, 'Licensed "Drums"');
  assert.equal(certificate.artist, 'Test Artist');
  assert.equal(certificate.clip.duration_seconds, 15);
  assert.equal(certificate.clip.hit_point_seconds, 5);
  assert.equal(certificate.key_prefix, key.slice(0, 12));
  assert.ok(!JSON.stringify(document).includes(key), 'never the whole key');
  // Granted by the download (a second either way for the two clocks' rounding).
  const grantedAt = Date.parse(certificate.granted_at);
  assert.ok(grantedAt >= downloadedFrom - 1000 && grantedAt <= downloadedBy + 1000, `granted at ${certificate.granted_at}`);
  assert.deepEqual(certificate.scope, LICENSE_SCOPE);
  // The same certificate again is the same bytes (Ed25519 is deterministic; nothing time-dependent is signed).
  assert.deepEqual((await call(server.base, 'GET', `${API}/licenses/${licenseId}`, key)).body, document);
  const jwk = keys.keys[0];
  assert.deepEqual([jwk.kty, jwk.crv, jwk.alg, jwk.use], ['OKP', 'Ed25519', 'EdDSA', 'sig']);
  assert.equal(Object.hasOwn(jwk, 'd'), false, 'the private part is never published');
});

/** Every leaf of the certificate, as a path of keys and indices. */
function leaves(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leaves(v, [...at, Array.isArray(value) ? Number(k) : k]));
  return [at];
}

function changed(value: unknown): unknown {
  if (typeof value === 'string') return `${value}x`;
  if (typeof value === 'number') return value + 1;
  if (value === null) return 0;
  return !value;
}

test('a tampered certificate fails: any field, an added field, the signature, the key id', async () => {
  const key = await server.newKey('starter');
  const licenseId = (await download(key, { track_id: trackId, duration_seconds: 12 })).get('x-license-id')!;
  const document = (await call(server.base, 'GET', `${API}/licenses/${licenseId}`, key)).body;
  const keys = await publishedKeys();
  const paths = leaves(document.certificate);
  assert.ok(paths.length >= 15, `${paths.length} fields`);
  for (const at of paths) {
    const tampered = structuredClone(document);
    let parent = tampered.certificate;
    for (const step of at.slice(0, -1)) parent = parent[step];
    parent[at[at.length - 1]] = changed(parent[at[at.length - 1]]);
    const result = verifyCertificate(tampered, keys);
    assert.equal(result.valid, false, `changing ${at.join('.')} must invalidate`);
  }
  assert.equal(verifyCertificate({ ...document, certificate: { ...document.certificate, licensee: 'someone else' } }, keys).valid, false);
  const { key_prefix: _, ...withoutPrefix } = document.certificate;
  assert.equal(verifyCertificate({ ...document, certificate: withoutPrefix }, keys).valid, false);
  const signature = Buffer.from(document.signature, 'base64url');
  signature[10] ^= 1;
  assert.equal(verifyCertificate({ ...document, signature: signature.toString('base64url') }, keys).valid, false);
  assert.equal(verifyCertificate({ ...document, signature: `${document.signature}A` }, keys).valid, false);
  assert.equal(verifyCertificate({ ...document, signature: `${document.signature}!` }, keys).valid, false, 'characters outside base64url');
  assert.equal(verifyCertificate({ ...document, key_id: 'another' }, keys).valid, false);
  // Signed by another key that claims this key's id.
  const other = crypto.generateKeyPairSync('ed25519');
  const forged = { ...document, signature: crypto.sign(null, Buffer.from(JSON.stringify(document.certificate)), other.privateKey).toString('base64url') };
  assert.equal(verifyCertificate(forged, keys).valid, false);
  // Key order in the file does not matter: the signature is over the canonical form.
  const reordered = { ...document, certificate: Object.fromEntries(Object.entries(document.certificate).reverse()) };
  assert.equal(verifyCertificate(reordered, keys).valid, true);
});

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'billing/license-cli.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('npm run licenses -- verify: valid (exit 0) with a saved key or the server, invalid (exit 1) when tampered', async () => {
  const key = await server.newKey('starter');
  const licenseId = (await download(key, { track_id: trackId })).get('x-license-id')!;
  const certificate = await (await fetch(`${server.base}${API}/licenses/${licenseId}`, { headers: { authorization: `Bearer ${key}` } })).text();
  const certificateFile = path.join(scratch, 'certificate.json');
  const keyFile = path.join(scratch, 'key.json');
  const tamperedFile = path.join(scratch, 'tampered.json');
  fs.writeFileSync(certificateFile, certificate);
  fs.writeFileSync(keyFile, await (await fetch(`${server.base}/.well-known/music-license-key`)).text());
  fs.writeFileSync(tamperedFile, certificate.replace('"clip":null', '"clip":{"duration_seconds":300}'));
  assert.notEqual(fs.readFileSync(tamperedFile, 'utf8'), certificate);

  const [offline, online, tampered, noKey] = await Promise.all([
    runCli(['verify', certificateFile, '--key', keyFile]),
    runCli(['verify', certificateFile, '--server', server.base]),
    runCli(['verify', tamperedFile, '--key', keyFile]),
    runCli(['verify', certificateFile]),
  ]);
  assert.equal(offline.code, 0, offline.stderr);
  assert.match(offline.stdout, /^valid/);
  assert.equal(online.code, 0, online.stderr);
  assert.match(online.stdout, /^valid/);
  assert.equal(tampered.code, 1, tampered.stderr);
  assert.match(tampered.stdout, /^invalid: the signature does not match/);
  assert.equal(noKey.code, 2);
  assert.match(noKey.stderr, /--key FILE or --server URL/);
});

test('another key cannot read a license (404, as for an unknown id) nor see it in its list; malformed ids are 400', async () => {
  const owner = await server.newKey('starter');
  const other = await server.newKey('starter');
  const licenseId = (await download(owner, { track_id: trackId })).get('x-license-id')!;
  const theirs = await call(server.base, 'GET', `${API}/licenses/${licenseId}`, other);
  assert.equal(theirs.status, 404);
  assert.equal(theirs.body.code, 'not_found');
  const unknown = await call(server.base, 'GET', `${API}/licenses/lic_AAAAAAAA_zz`, other);
  assert.equal(unknown.status, 404);
  assert.equal(theirs.body.message.replace(licenseId, 'ID'), unknown.body.message.replace('lic_AAAAAAAA_zz', 'ID'), 'the same answer as for an id that names nothing');
  assert.deepEqual((await call(server.base, 'GET', `${API}/licenses`, other)).body, { licenses: [], total_count: 0, offset: 0, limit: 50 });
  for (const bad of ['123', 'lic_', 'req_AAAAAAAA_1', 'lic_AAAAAAAA_1%00']) {
    const malformed = await call(server.base, 'GET', `${API}/licenses/${bad}`, owner);
    assert.equal(malformed.status, 400, bad);
    assert.equal(malformed.body.code, 'invalid_parameters');
    assert.match(malformed.body.message, /malformed/);
    assert.equal(typeof malformed.body.request_id, 'string');
  }
  const query = await call(server.base, 'GET', `${API}/licenses/${licenseId}?x=1`, owner);
  assert.equal(query.status, 400);
  assert.equal((await call(server.base, 'GET', `${API}/licenses/${licenseId}`)).status, 401);
});

test('the signing key is made once per database, the same for processes starting at once, or taken from the environment', async () => {
  const { sql } = server.service.database;
  const [published] = (await publishedKeys()).keys;
  const loaded = await Promise.all([loadSigningKey(sql, undefined), loadSigningKey(sql, undefined), loadSigningKey(sql, undefined)]);
  assert.deepEqual(loaded.map((k) => k.keyId), [published.kid, published.kid, published.kid]);
  assert.equal((await sql`SELECT count(*)::integer AS n FROM signing_keys`)[0].n, 1);

  const pem = crypto.generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const fromPem = await loadSigningKey(sql, pem);
  assert.notEqual(fromPem.keyId, published.kid);
  const der = crypto.createPrivateKey(pem).export({ format: 'der', type: 'pkcs8' }).toString('base64');
  assert.equal((await loadSigningKey(sql, der)).keyId, fromPem.keyId);
  const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  await assert.rejects(loadSigningKey(sql, rsa), /LICENSE_SIGNING_KEY is a rsa key; an Ed25519 key is needed/);
  await assert.rejects(loadSigningKey(sql, 'not a key'), /LICENSE_SIGNING_KEY is not a PKCS#8 private key/);
});

test('a second server on the same database publishes the same key and serves the same signed certificate', async () => {
  const key = await server.newKey('starter');
  const licenseId = (await download(key, { track_id: trackId })).get('x-license-id')!;
  const first = (await call(server.base, 'GET', `${API}/licenses/${licenseId}`, key)).body;
  const dataDir = fs.mkdtempSync(path.join(scratch, 'second-'));
  const second = await startService({ ...loadConfig(), port: 0, host: '127.0.0.1', databaseUrl: server.db.url, dataDir, workers: 1, licenseSigningKey: undefined }, createLogger({ level: 'silent' }));
  try {
    const base = `http://127.0.0.1:${second.port}`;
    const keys = parseJwkSet(await (await fetch(`${base}/.well-known/music-license-key`)).text());
    assert.deepEqual(keys, await publishedKeys());
    const again = await call(base, 'GET', `${API}/licenses/${licenseId}`, key);
    assert.deepEqual(again.body, first);
    assert.equal(verifyCertificate(first, keys).valid, true);
  } finally {
    await second.stop();
  }
});
