// The catalog's objects in an S3 bucket (a real S3 API server, s3rver): stored once, read by any
// node through its own bounded disk cache, a missing object and an unreachable or silent store
// each their own error within the deadline, eviction by bytes, clips shared between nodes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import http from 'node:http';
import { startTestS3, silentEndpoint, refusedEndpoint, TEST_BUCKET, type TestS3 } from '../support/s3-server.ts';
import { s3Storage } from '../../catalog/storage/s3-storage.ts';
import { objectName, StoredObjectMissing, StorageUnavailable, type CatalogStorage } from '../../catalog/storage/catalog-storage.ts';
import { openBucket } from '../../catalog/storage/s3-objects.ts';
import { openDiskCache } from '../../catalog/storage/disk-cache.ts';
import { sha256Hex } from '../../catalog/store.ts';
import { createClipCache } from '../../server/clip-cache.ts';
import { encodeSharedClip, sharedClipName } from '../../server/shared-clips.ts';
import type { ClipValue } from '../../engine/worker.ts';

let s3: TestS3;
const dirs: string[] = [];
const storages: CatalogStorage[] = [];
before(async () => (s3 = await startTestS3()));
after(async () => {
  for (const storage of storages) await storage.close();
  await s3.stop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-cache-'));
  dirs.push(dir);
  return dir;
};

/** A node's view of the bucket: its own cache directory. */
function node(options: { endpoint?: string; cacheBytes?: number; deadlineMs?: number; prefix?: string } = {}): CatalogStorage {
  const storage = s3Storage({
    bucket: TEST_BUCKET,
    prefix: `${options.prefix ?? 'unit'}/`,
    endpoint: options.endpoint ?? s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    deadlineMs: options.deadlineMs,
    cacheDir: tempDir(),
    cacheBytes: options.cacheBytes ?? 64 * 1024 * 1024,
  });
  storages.push(storage);
  return storage;
}

test('an object stored by one node is read byte for byte by another, whose cache was empty', async () => {
  const bytes = crypto.randomBytes(300_000);
  const a = node();
  const sha256 = await a.put(bytes, 'audio');
  assert.equal(sha256, sha256Hex(bytes));
  assert.equal(await a.put(bytes, 'audio'), sha256, 'storing it again changes nothing');
  const b = node();
  assert.equal(await b.has(sha256, 'audio'), true);
  const file = await b.localPath(sha256, 'audio');
  assert.deepEqual(fs.readFileSync(file), bytes);
  // In the bucket under the prefix, laid out as DATA_DIR's files are.
  assert.ok(fs.readdirSync(s3.directory, { recursive: true }).some((entry) => String(entry).includes(sha256)));
});

test('a missing object is StoredObjectMissing, and `has` says false', async () => {
  const storage = node();
  const absent = 'f'.repeat(64);
  assert.equal(await storage.has(absent, 'audio'), false);
  await assert.rejects(storage.localPath(absent, 'preview'), (err) => err instanceof StoredObjectMissing && err.key.endsWith(`${absent}.mp3`));
});

test('a store that refuses connections is StorageUnavailable at once', async () => {
  const storage = node({ endpoint: await refusedEndpoint(), deadlineMs: 2_000 });
  const started = performance.now();
  await assert.rejects(storage.localPath('a'.repeat(64), 'audio'), StorageUnavailable);
  await assert.rejects(storage.put(new Uint8Array(10), 'audio'), StorageUnavailable);
  assert.ok(performance.now() - started < 30_000, 'no hang');
});

test('a store that accepts and never answers is StorageUnavailable after the deadline, not a hang', async () => {
  const silent = await silentEndpoint();
  try {
    const storage = node({ endpoint: silent.endpoint, deadlineMs: 300 });
    await assert.rejects(storage.localPath('b'.repeat(64), 'audio'), (err) => err instanceof StorageUnavailable && /unavailable/.test(err.message));
  } finally {
    await silent.close();
  }
});

test('the disk cache keeps at most its bytes, least recently used out first; an evicted object is fetched again', async () => {
  const writer = node();
  const objects = [crypto.randomBytes(100_000), crypto.randomBytes(100_000), crypto.randomBytes(100_000)];
  const shas = await Promise.all(objects.map((bytes) => writer.put(bytes, 'audio')));
  const reader = node({ cacheBytes: 250_000 });
  const first = await reader.localPath(shas[0], 'audio');
  await reader.localPath(shas[1], 'audio');
  assert.ok(fs.existsSync(first));
  await reader.localPath(shas[2], 'audio'); // 300,000 bytes > 250,000: the first goes
  await new Promise((resolve) => setTimeout(resolve, 50)); // the file's removal is not waited for
  assert.equal(fs.existsSync(first), false, 'the least recently used copy was removed from the disk');
  const again = await reader.localPath(shas[0], 'audio');
  assert.deepEqual(fs.readFileSync(again), objects[0]);
});

test('a restarted node adopts the copies in its cache directory, and a crash\'s temporary files are removed', async () => {
  const dir = tempDir();
  const cache = openDiskCache(dir, 1_000_000);
  let fetched = 0;
  const fetch = async () => (fetched++, new Uint8Array([1, 2, 3]));
  const file = await cache.path('audio/ab/x.mp3', fetch);
  fs.writeFileSync(`${file}.123.tmp`, 'partial');
  const restarted = openDiskCache(dir, 1_000_000);
  assert.equal(await restarted.path('audio/ab/x.mp3', fetch), file);
  assert.equal(fetched, 1, 'served from the adopted copy');
  assert.equal(fs.existsSync(`${file}.123.tmp`), false);
  assert.deepEqual(restarted.stats(), { files: 1, bytes: 3, hits: 1, misses: 0 });
});

test('a clip one node made is served by another from the shared store, not made again', async () => {
  const a = node({ prefix: 'clips-test' });
  const b = node({ prefix: 'clips-test' });
  const clip: ClipValue = { mp3: crypto.randomBytes(5_000), plan: { mode: 'edit', durationSeconds: 10 } as ClipValue['plan'], samples: 441_000, method: 'splice' };
  const key = { audioSha256: 'c'.repeat(64), mode: 'edit', durationSeconds: 10, hitPointSeconds: 4 };
  const onA = createClipCache(1_000_000, a.shared);
  assert.deepEqual((await onA.get(key, async () => clip)).mp3, clip.mp3);
  const onB = createClipCache(1_000_000, b.shared);
  // The shared copy is written after the reply: wait until it is there.
  for (let i = 0; i < 100 && !(await b.shared!.get(sharedClipName(key))); i++) await new Promise((r) => setTimeout(r, 20));
  const fromB = await onB.get(key, async () => assert.fail('made again on the second node'));
  assert.deepEqual(Buffer.from(fromB.mp3), Buffer.from(clip.mp3));
  assert.deepEqual(fromB.plan, clip.plan);
  assert.equal(fromB.samples, clip.samples);
  assert.equal(onB.stats().fromStore, 1);
  // Another request is not confused with it.
  let made = 0;
  await onB.get({ ...key, hitPointSeconds: 5 }, async () => (made++, clip));
  assert.equal(made, 1);
});

test('an object whose bytes do not hash to its name (cut short in the bucket) is damaged: never cached, read whole once repaired', async () => {
  const bytes = crypto.randomBytes(200_000);
  const writer = node({ prefix: 'damaged' });
  const sha256 = await writer.put(bytes, 'audio');
  const bucket = openBucket({ bucket: TEST_BUCKET, prefix: 'damaged/', endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true });
  try {
    await bucket.put(objectName(sha256, 'audio'), bytes.subarray(0, 100_000));
    const reader = node({ prefix: 'damaged' });
    await assert.rejects(reader.localPath(sha256, 'audio'), (err) => err instanceof StoredObjectMissing && err.problem === 'damaged' && /do not match their SHA-256/.test(err.message));
    await bucket.put(objectName(sha256, 'audio'), bytes);
    assert.deepEqual(fs.readFileSync(await reader.localPath(sha256, 'audio')), bytes);
  } finally {
    bucket.close();
  }
});

test('a cached copy removed from the disk, or cut short there, is fetched again', async () => {
  const bytes = crypto.randomBytes(50_000);
  const sha256 = await node().put(bytes, 'audio');
  const reader = node();
  const file = await reader.localPath(sha256, 'audio');
  fs.rmSync(file);
  assert.deepEqual(fs.readFileSync(await reader.localPath(sha256, 'audio')), bytes);
  fs.truncateSync(file, 1_000);
  assert.deepEqual(fs.readFileSync(await reader.localPath(sha256, 'audio')), bytes);
});

test('a cache that cannot write its copy is StorageUnavailable, and leaves no partial file', async () => {
  const blocked = tempDir();
  const cache = openDiskCache(blocked, 1_000_000);
  fs.writeFileSync(path.join(blocked, 'audio'), 'a file where a directory of copies should be');
  await assert.rejects(cache.path('audio/ab/x.mp3', async () => new Uint8Array(10)), (err) => err instanceof StorageUnavailable && /ENOTDIR/.test(err.message));
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'audio', 'ab'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'audio', 'ab', 'y.mp3')); // the rename's target cannot be replaced
  await assert.rejects(openDiskCache(dir, 1_000_000).path('audio/ab/y.mp3', async () => new Uint8Array(10)), StorageUnavailable);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'audio', 'ab')), ['y.mp3'], 'no temporary file is left');
});

test('an object larger than the whole cache is served, then removed when the next is cached; a restart removes such copies', async () => {
  const dir = tempDir();
  const cache = openDiskCache(dir, 1_000);
  const big = await cache.path('audio/aa/big.mp3', async () => new Uint8Array(5_000));
  assert.equal(fs.statSync(big).size, 5_000);
  const bigger = await cache.path('audio/bb/bigger.mp3', async () => new Uint8Array(6_000));
  await new Promise((resolve) => setTimeout(resolve, 50)); // the removal is not waited for
  assert.equal(fs.existsSync(big), false, 'the earlier oversized copy is gone');
  assert.equal(fs.existsSync(bigger), true);
  await cache.path('audio/cc/small.mp3', async () => new Uint8Array(100));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(fs.existsSync(bigger), false);
  fs.writeFileSync(path.join(dir, 'left-over.mp3'), new Uint8Array(5_000)); // as a crash would leave it
  const restarted = openDiskCache(dir, 1_000);
  assert.equal(fs.existsSync(path.join(dir, 'left-over.mp3')), false);
  assert.deepEqual(restarted.stats(), { files: 1, bytes: 100, hits: 0, misses: 0 });
});

test('a shared clip cut short in the bucket is not served: the clip is made again', async () => {
  const storage = node({ prefix: 'clips-cut' });
  const clip: ClipValue = { mp3: crypto.randomBytes(8_000), plan: { mode: 'edit', durationSeconds: 10 } as ClipValue['plan'], samples: 441_000, method: 'splice' };
  const key = { audioSha256: 'd'.repeat(64), mode: 'edit', durationSeconds: 10, hitPointSeconds: 3 };
  const whole = encodeSharedClip(clip);
  await storage.shared!.put(sharedClipName(key), whole.subarray(0, whole.byteLength - 4_000));
  let made = 0;
  const got = await createClipCache(1_000_000, storage.shared).get(key, async () => (made++, clip));
  assert.equal(made, 1);
  assert.deepEqual(Buffer.from(got.mp3), Buffer.from(clip.mp3));
});

test('a large object\'s body may take longer than the deadline, at a reasonable rate; a stalled one may not', async () => {
  const body = crypto.randomBytes(2_000_000);
  // An S3 endpoint that answers at once and sends the body in 20 pieces over about 0.5 s, or stalls after the first.
  const start = async (stall: boolean) => {
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.byteLength });
      let piece = 0;
      const send = () => {
        if (piece === 20) return res.end();
        res.write(body.subarray(piece * 100_000, ++piece * 100_000));
        if (!stall || piece < 1) setTimeout(send, 25);
      };
      send();
      req.on('close', () => (piece = 20));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  };
  for (const stall of [false, true]) {
    const server = await start(stall);
    const bucket = openBucket({ bucket: TEST_BUCKET, prefix: '', endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`, region: 'us-east-1', forcePathStyle: true, deadlineMs: 300 });
    try {
      if (stall) await assert.rejects(bucket.get('x'), StorageUnavailable);
      else assert.deepEqual(Buffer.from(await bucket.get('x')), body);
    } finally {
      bucket.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
});
