// The service with its catalog in an S3 bucket (a real S3 API server, s3rver): a track ingested
// through one node is downloaded whole and as a clip, byte for byte, from another node whose cache
// started empty; with the store away, a download is 503 with Retry-After and costs nothing; an
// object missing from the bucket, or damaged there, is a 500 that names it; a node's copy removed
// from its disk is fetched again, and the download charged once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startTestServer, type TestServer } from './support/server.ts';
import { API } from './support/http.ts';
import { signedPreviewUrl } from '../server/previews.ts';
import { climaxPiece } from './support/synth.ts';
import { mp3Of } from './support/audio.ts';
import { ingestSignals } from './support/ingest.ts';
import { startTestS3, refusedEndpoint, TEST_BUCKET, type TestS3 } from './support/s3-server.ts';
import { hashApiKey } from '../billing/api-keys.ts';
import { openBucket } from '../catalog/storage/s3-objects.ts';
import { objectName } from '../catalog/storage/catalog-storage.ts';

let s3: TestS3;
let first: TestServer;
let trackId: string;
let source: Uint8Array;

before(async () => {
  s3 = await startTestS3();
  first = await startTestServer({ storage: s3.location('http') });
  const signal = climaxPiece(120, 60, 35);
  source = await mp3Of(signal);
  await ingestSignals({ sql: first.service.database.sql, pool: first.service.engine, storage: first.service.storage, tracks: [{ file: 'climax.mp3', signal, metadata: { title: 'Climax', artist: 'Test' } }] });
  [{ id: trackId }] = await first.service.database.sql`SELECT id FROM tracks`;
});
after(async () => {
  await first.stop();
  await s3.stop();
});

/**
 * Runs `use` on another node: the same database, the same bucket (or `storage`), its own DATA_DIR
 * and cache; stopped after it, so that a file's nodes never hold more connections than two do.
 */
async function withAnotherNode(use: (node: TestServer) => Promise<void>, storage = s3.location('http')): Promise<void> {
  const server = await startTestServer({ databaseUrl: first.db.url, storage });
  try {
    await use(server);
  } finally {
    await server.stop();
  }
}

async function download(server: TestServer, key: string, body: unknown) {
  const response = await fetch(`${server.base}${API}/download-track`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}

async function credits(server: TestServer, key: string): Promise<number> {
  return (await server.service.database.sql`SELECT credits FROM api_keys WHERE key_hash = ${hashApiKey(key)}`)[0].credits;
}

test('the audio is in the bucket, not in DATA_DIR', async () => {
  assert.equal(fs.existsSync(`${first.dataDir}/catalog`), false);
  assert.ok(fs.readdirSync(s3.directory, { recursive: true }).some((entry) => String(entry).startsWith('mla-test') && String(entry).includes('audio')));
});

test('another node serves the full track and a clip byte for byte, its cache empty at the start', async () => {
  await withAnotherNode(async (second) => {
    const key = await first.newKey('pro');
    const whole = await download(second, key, { track_id: trackId });
    assert.equal(whole.status, 200);
    assert.deepEqual(Buffer.from(whole.bytes), Buffer.from(source));
    const clipOnFirst = await download(first, key, { track_id: trackId, duration_seconds: 12, mode: 'edit' });
    const clipOnSecond = await download(second, key, { track_id: trackId, duration_seconds: 12, mode: 'edit' });
    assert.equal(clipOnFirst.status, 200);
    assert.equal(clipOnSecond.status, 200);
    assert.deepEqual(Buffer.from(clipOnSecond.bytes), Buffer.from(clipOnFirst.bytes));
    assert.equal(clipOnSecond.headers.get('x-clip-plan'), clipOnFirst.headers.get('x-clip-plan'));
    // A preview link the first node signed is honoured by the second (the secret is the database's).
    const preview = await fetch(signedPreviewUrl(second.base, first.service.previewSecret, trackId));
    assert.equal(preview.status, 200);
    assert.ok((await preview.arrayBuffer()).byteLength > 10_000);
  });
});

test('with the store away, a download is 503 with Retry-After, names the store, and costs nothing', async () => {
  await withAnotherNode(async (cut) => {
    const key = await first.newKey('pro');
    const before = await credits(first, key);
    for (const body of [{ track_id: trackId }, { track_id: trackId, duration_seconds: 10 }]) {
      const response = await download(cut, key, body);
      assert.equal(response.status, 503);
      const error = JSON.parse(Buffer.from(response.bytes).toString());
      assert.equal(error.code, 'service_unavailable');
      assert.match(error.message, /audio store is unavailable/);
      assert.ok(Number(response.headers.get('retry-after')) >= 1);
    }
    assert.equal(await credits(first, key), before);
  }, { ...s3.location('http'), endpoint: await refusedEndpoint() });
});

test('a full download whose cached copy was removed from the disk is fetched again, sent whole, and charged once', async () => {
  const key = await first.newKey('pro');
  assert.equal((await download(first, key, { track_id: trackId })).status, 200);
  fs.rmSync(`${first.dataDir}/storage-cache`, { recursive: true, force: true }); // by hand, under the running node
  const before = await credits(first, key);
  const again = await download(first, key, { track_id: trackId });
  assert.equal(again.status, 200);
  assert.deepEqual(Buffer.from(again.bytes), Buffer.from(source));
  assert.equal(await credits(first, key), before - 1);
});

test('an object damaged in the bucket (cut short) is a 500 that says so, never a short MP3, and costs nothing', async () => {
  const [track] = await first.service.database.sql`SELECT audio_sha256 FROM tracks WHERE id = ${trackId}`;
  const location = s3.location('http');
  const bucket = openBucket({ bucket: TEST_BUCKET, prefix: 'http/', endpoint: location.endpoint, region: 'us-east-1', forcePathStyle: true });
  try {
    await bucket.put(objectName(track.audio_sha256, 'audio', 'mp3'), source.subarray(0, source.byteLength >> 1));
    fs.rmSync(`${first.dataDir}/storage-cache`, { recursive: true, force: true }); // its copy gone: read from the bucket
    const key = await first.newKey('pro');
    const before = await credits(first, key);
    const response = await download(first, key, { track_id: trackId });
    assert.equal(response.status, 500);
    assert.match(JSON.parse(Buffer.from(response.bytes).toString()).message, new RegExp(`damaged in the store .*${track.audio_sha256}`));
    assert.equal(await credits(first, key), before);
  } finally {
    await bucket.put(objectName(track.audio_sha256, 'audio', 'mp3'), source);
    bucket.close();
  }
});

test('an object missing from the bucket is a 500 that names it, for the preview and the download alike, and costs nothing', async () => {
  const [track] = await first.service.database.sql`SELECT audio_sha256, preview_sha256 FROM tracks WHERE id = ${trackId}`;
  await first.service.storage.remove(track.preview_sha256, 'preview');
  await first.service.storage.remove(track.audio_sha256, 'audio');
  await withAnotherNode(async (cold) => {
    const key = await first.newKey('pro');
    const preview = await fetch(signedPreviewUrl(cold.base, cold.service.previewSecret, trackId));
    assert.equal(preview.status, 500);
    assert.match((await preview.json()).message, new RegExp(`missing from the store .*${track.preview_sha256}`));
    const before = await credits(first, key);
    for (const body of [{ track_id: trackId }, { track_id: trackId, duration_seconds: 11 }]) {
      const response = await download(cold, key, body);
      assert.equal(response.status, 500);
      assert.match(JSON.parse(Buffer.from(response.bytes).toString()).message, new RegExp(`missing from the store .*${track.audio_sha256}`));
    }
    assert.equal(await credits(first, key), before);
  });
});
