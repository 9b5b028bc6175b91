// POST /download-track and the preview links, over real HTTP, with real MP3s decoded back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call, rawPost } from './support/http.ts';
import { climaxPiece, drumPattern } from './support/synth.ts';
import { decodeMp3 } from './support/audio.ts';
import { ingestSignals } from './support/ingest.ts';
import { ingestFolder, removeTrack } from '../catalog/ingest.ts';
import { fullDownloadObject, originalPath, type TrackFiles } from '../catalog/track-files.ts';
import { indexFrames } from '../engine/mp3/frame-index.ts';
import { parseFrameHeader } from '../engine/mp3/frame-header.ts';
import { wavBytes } from './support/master-files.ts';
import { storePath, trackIdOf } from '../catalog/store.ts';
import { analysePcm } from '../engine/analysis/analyse.ts';
import { hashApiKey } from '../billing/api-keys.ts';
import { previewSignature, signedPreviewUrl } from '../server/previews.ts';

let server: TestServer;
let tracks: Record<string, { id: string; audio_sha256: string; preview_sha256: string; audio_bytes: number; duration_seconds: number }>;

async function ingestInto(target: TestServer, files: Record<string, Float32Array>, titles: Record<string, string>) {
  await ingestSignals({
    sql: target.service.database.sql,
    pool: target.service.engine,
    storage: target.service.storage,
    tracks: Object.entries(files).map(([file, signal]) => ({ file, signal, metadata: { title: titles[file], artist: 'Test' } })),
  });
  const rows = await target.service.database.sql`SELECT id, source_file, audio_sha256, preview_sha256, audio_bytes, duration_seconds FROM tracks`;
  return Object.fromEntries(rows.map((r) => [r.source_file, r as any]));
}

before(async () => {
  server = await startTestServer();
  tracks = await ingestInto(server, { 'climax.mp3': climaxPiece(120, 90, 50), 'drums.mp3': drumPattern(100, 40) }, { 'climax.mp3': 'Café Ümlaut "Edit"', 'drums.mp3': 'Drums' });
});
after(() => server.stop());

async function download(key: string, body: unknown) {
  const response = await fetch(`${server.base}${API}/download-track`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, json: () => JSON.parse(Buffer.from(bytes).toString()) };
}

async function balance(key: string): Promise<number> {
  const [row] = await server.service.database.sql`SELECT credits FROM api_keys WHERE key_hash = ${hashApiKey(key)}`;
  return row.credits;
}

async function licenses(key: string) {
  return server.service.database.sql`SELECT l.* FROM licenses l JOIN api_keys k ON k.id = l.key_id WHERE k.key_hash = ${hashApiKey(key)} ORDER BY l.id`;
}

test('full track: the stored bytes, streamed, with the spec headers; one credit, one license', async () => {
  const key = await server.newKey('starter');
  const track = tracks['climax.mp3'];
  const response = await download(key, { track_id: track.id });
  assert.equal(response.status, 200);
  assert.ok(Buffer.from(response.bytes).equals(fs.readFileSync(storePath(path.join(server.dataDir, 'catalog'), track.audio_sha256, 'audio'))));
  assert.equal(response.headers.get('content-type'), 'audio/mpeg');
  assert.equal(response.headers.get('content-length'), String(track.audio_bytes));
  assert.equal(response.headers.get('x-track-id'), track.id);
  assert.equal(response.headers.get('x-track-duration'), '90');
  assert.equal(response.headers.get('x-credits-remaining'), '299');
  assert.ok(response.headers.get('x-ratelimit-remaining'));
  const disposition = response.headers.get('content-disposition')!;
  assert.match(disposition, /^attachment; filename="Cafe Umlaut _Edit_\.mp3"; filename\*=UTF-8''Caf%C3%A9%20%C3%9Cmlaut%20%22Edit%22\.mp3$/);
  assert.equal(await balance(key), 299);
  const granted = await licenses(key);
  assert.equal(granted.length, 1);
  assert.equal(granted[0].track_id, track.id);
  assert.equal(granted[0].duration_seconds, null);
});

test('clip: decoded length is D, the peak lands at H (measured), headers describe the clip', async () => {
  const key = await server.newKey('starter');
  const track = tracks['climax.mp3'];
  for (const [duration, hit] of [[20, 5], [30, 22.5], [12, 0]] as const) {
    const response = await download(key, { track_id: track.id, duration_seconds: duration, hit_point_seconds: hit });
    assert.equal(response.status, 200, Buffer.from(response.bytes.slice(0, 300)).toString());
    const pcm = await decodeMp3(response.bytes);
    assert.equal(pcm.channels[0].length, duration * 44100);
    assert.equal(response.headers.get('x-track-duration'), String(duration));
    assert.equal(Number(response.headers.get('content-length')), response.bytes.length);
    const landing = Number(response.headers.get('x-hit-point'));
    assert.ok(Math.abs(landing - hit) <= 1, `X-Hit-Point ${landing} for H=${hit}`);
    const start = Number(response.headers.get('x-clip-start'));
    assert.ok(Math.abs(start + landing - 50) <= 0.5, `clip start ${start} + hit ${landing} is the peak`);
    if (duration >= 20) {
      const measured = analysePcm(pcm).peakSeconds;
      assert.ok(Math.abs(measured - hit) <= 1, `peak measured at ${measured} for H=${hit}`);
    }
  }
  const granted = await licenses(key);
  assert.deepEqual(granted.map((l) => [l.duration_seconds, l.hit_point_seconds]), [[20, 5], [30, 22.5], [12, 0]]);
  assert.equal(await balance(key), 297);
});

test('every invalid request is a 400 that names the problem and costs nothing; unknown and removed tracks are 404', async () => {
  const key = await server.newKey('pro');
  const id = tracks['drums.mp3'].id;
  const cases: [unknown, RegExp][] = [
    [{}, /track_id is required/],
    [{ track_id: 5 }, /track_id must be a non-empty string/],
    [{ track_id: '' }, /track_id must be a non-empty string/],
    [{ track_id: id, duration_seconds: '30' }, /duration_seconds must be a number/],
    [{ track_id: id, duration_seconds: 9.99 }, /duration_seconds must be from 10 to 300/],
    [{ track_id: id, duration_seconds: 301 }, /duration_seconds must be from 10 to 300/],
    [{ track_id: id, hit_point_seconds: 3 }, /hit_point_seconds requires duration_seconds/],
    [{ track_id: id, duration_seconds: 20, hit_point_seconds: 20 }, /less than duration_seconds/],
    [{ track_id: id, duration_seconds: 20, hit_point_seconds: -1 }, /0 or more/],
    [{ track_id: id, duration_seconds: 20, extra: true }, /unknown field "extra"/],
    [{ track_id: id, duration_seconds: 60 }, /longer than the track \(40 s\); choose 10 to 40/],
  ];
  for (const [body, message] of cases) {
    const response = await download(key, body);
    assert.equal(response.status, 400, JSON.stringify(body));
    const error = response.json();
    assert.equal(error.code, 'invalid_parameters');
    assert.match(error.message, message, JSON.stringify(body));
  }
  // Unreachable hit point (decided by the engine, after the credit was reserved): refunded.
  const unreachable = await download(key, { track_id: tracks['climax.mp3'].id, duration_seconds: 60, hit_point_seconds: 2 });
  assert.equal(unreachable.status, 400);
  assert.match(unreachable.json().message, /hit point must be from [\d.]+ to (under )?[\d.]+/);
  assert.ok(unreachable.json().feasible_range.min > 2);
  assert.equal(unreachable.headers.get('x-credits-remaining'), '50000');

  assert.equal((await download(key, { track_id: 'trk_0000000000000000' })).status, 404);
  // Ids no catalog can hold, a lone surrogate included (PostgreSQL would refuse it): 404 too.
  for (const track_id of ['trk_\ud800', 'TRK_' + id.slice(4), 'x'.repeat(100)]) {
    const response = await download(key, { track_id });
    assert.equal(response.status, 404, JSON.stringify(track_id));
    assert.equal(response.json().code, 'not_found');
  }
  // A NUL character no field accepts (nor PostgreSQL text): 400, naming the field.
  for (const track_id of ['trk_\u0000', `${id}\u0000`]) {
    const response = await download(key, { track_id });
    assert.equal(response.status, 400, JSON.stringify(track_id));
    assert.match(response.json().message, /^track_id holds a NUL character/);
  }
  const gone = await ingestInto(server, { 'gone.mp3': drumPattern(90, 15) }, { 'gone.mp3': 'Gone' });
  assert.equal(await removeTrack(server.service.database.sql, gone['gone.mp3'].id), true);
  const removed = await download(key, { track_id: gone['gone.mp3'].id, duration_seconds: 10 });
  assert.equal(removed.status, 404);
  assert.equal(removed.json().code, 'not_found');
  assert.equal(await balance(key), 50000);
  assert.equal((await licenses(key)).length, 0);
});

test('cached clips are identical bytes; concurrent identical requests share one job and each is charged once', async () => {
  const key = await server.newKey('pro');
  const body = { track_id: tracks['climax.mp3'].id, duration_seconds: 15, hit_point_seconds: 4 };
  const first = await download(key, body);
  const again = await download(key, body);
  assert.equal(first.status, 200);
  assert.ok(Buffer.from(first.bytes).equals(Buffer.from(again.bytes)), `first ${first.bytes.length} bytes, again ${again.bytes.length} bytes`);
  const concurrent = await Promise.all([1, 2, 3, 4].map(() => download(key, { ...body, duration_seconds: 16 })));
  for (const r of concurrent) assert.ok(Buffer.from(r.bytes).equals(Buffer.from(concurrent[0].bytes)));
  assert.equal(await balance(key), 50000 - 6);
  assert.equal((await licenses(key)).length, 6);
});

test('cache hits are charged in batches: 20 concurrent hits on 5 credits give exactly 5 clips, 5 licenses, 15 402s', async () => {
  const key = await server.newKey('pro');
  const body = { track_id: tracks['climax.mp3'].id, duration_seconds: 14, hit_point_seconds: 4 };
  assert.equal((await download(key, body)).status, 200); // now cached
  await server.service.database.sql`UPDATE api_keys SET credits = 5 WHERE key_hash = ${hashApiKey(key)}`;
  const responses = await Promise.all(Array.from({ length: 20 }, () => download(key, body)));
  const ok = responses.filter((r) => r.status === 200);
  assert.equal(ok.length, 5, `statuses ${responses.map((r) => r.status)}`);
  assert.equal(responses.filter((r) => r.status === 402 && r.json().code === 'insufficient_credits').length, 15);
  assert.deepEqual(ok.map((r) => Number(r.headers.get('x-credits-remaining'))).sort(), [0, 1, 2, 3, 4]);
  assert.equal(await balance(key), 0);
  const granted = await licenses(key);
  assert.equal(granted.length, 6);
  assert.ok(granted.every((l) => l.track_id === body.track_id && l.duration_seconds === 14 && l.hit_point_seconds === 4));
  assert.equal(new Set(granted.map((l) => l.request_id)).size, 6);
});

test('a client that aborts before the status is not charged and gets no license', async () => {
  const key = await server.newKey('pro');
  const socket = await rawPost(server.base, `${API}/download-track`, key, { track_id: tracks['climax.mp3'].id, duration_seconds: 60, hit_point_seconds: 31.5 });
  await new Promise(setImmediate);
  socket.destroy();
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await balance(key), 50000);
  assert.equal((await licenses(key)).length, 0);
});

test('50 concurrent full downloads all complete with the right bytes', async () => {
  const key = await server.newKey('pro');
  const track = tracks['climax.mp3'];
  const expected = fs.readFileSync(storePath(path.join(server.dataDir, 'catalog'), track.audio_sha256, 'audio'));
  const responses = await Promise.all(Array.from({ length: 50 }, () => download(key, { track_id: track.id })));
  for (const r of responses) {
    assert.equal(r.status, 200);
    assert.ok(Buffer.from(r.bytes).equals(expected));
  }
});

test('slow clients hold a bounded buffer: 16 stalled downloads of a 24 MB track barely grow memory, and each resumes to the exact bytes', async () => {
  // A long track: the climax piece's frames repeated to 24 MB (real MP3 frames, about 25 min),
  // stored and listed as the catalog would, without analysing 25 min of audio.
  const stored = fs.readFileSync(storePath(path.join(server.dataDir, 'catalog'), tracks['climax.mp3'].audio_sha256, 'audio'));
  const long = Buffer.concat(Array.from({ length: Math.ceil((24 << 20) / stored.length) }, () => stored));
  const sha = await server.service.storage.put(long, 'audio');
  const sql = server.service.database.sql;
  await sql`
    INSERT INTO tracks (id, audio_sha256, audio_bytes, preview_sha256, title, artist, duration_seconds, peak_seconds, analysis)
    SELECT ${trackIdOf(sha)}, ${sha}, ${long.length}, preview_sha256, 'Long', 'Test', duration_seconds * ${long.length / stored.length}, peak_seconds, analysis
      FROM tracks WHERE id = ${tracks['climax.mp3'].id}`;
  const key = await server.newKey('pro');

  // Each client sends its request, takes the first chunk and then reads nothing: the kernel's
  // socket buffers fill (a few MB each), and the rest is up to the server's backpressure.
  const before = process.memoryUsage().rss;
  const clients = await Promise.all(Array.from({ length: 16 }, async () => {
    const socket = await rawPost(server.base, `${API}/download-track`, key, { track_id: trackIdOf(sha) });
    const first = await new Promise<Buffer>((resolve) => socket.once('data', resolve));
    socket.pause();
    return { socket, received: [first], bytes: first.length };
  }));
  await new Promise((r) => setTimeout(r, 1000));
  const grown = process.memoryUsage().rss - before;
  // Unbounded, the server would hold what the kernel did not take: ~20 MB a client, ~320 MB.
  assert.ok(grown < 64 << 20, `memory grew by ${(grown / 2 ** 20).toFixed(0)} MB with 16 stalled downloads`);

  // Reading again, every client gets the whole file, byte for byte.
  await Promise.all(clients.map((client) => new Promise<void>((resolve) => {
    const { socket, received } = client;
    const headBytes = received[0].indexOf('\r\n\r\n') + 4; // the head comes in the first chunk
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      client.bytes += chunk.length;
      if (client.bytes - headBytes < long.length) return;
      assert.ok(Buffer.concat(received).subarray(headBytes).equals(long));
      socket.destroy();
      resolve();
    });
    socket.resume();
  })));
});

test('previews: signed, expiring, free; Range, ETag and Cache-Control', async () => {
  const track = tracks['climax.mp3'];
  const expected = fs.readFileSync(storePath(path.join(server.dataDir, 'catalog'), track.preview_sha256, 'preview'));
  const url = signedPreviewUrl(server.base, server.service.previewSecret, track.id);
  const whole = await fetch(url);
  assert.equal(whole.status, 200);
  assert.ok(Buffer.from(await whole.arrayBuffer()).equals(expected));
  assert.equal(whole.headers.get('content-type'), 'audio/mpeg');
  assert.equal(whole.headers.get('accept-ranges'), 'bytes');
  assert.match(whole.headers.get('cache-control')!, /max-age=\d+/);
  const etag = whole.headers.get('etag')!;
  assert.ok(etag);
  assert.equal((await decodeMp3(new Uint8Array(expected))).channels[0].length, 30 * 44100);

  const part = await fetch(url, { headers: { range: 'bytes=100-199' } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get('content-range'), `bytes 100-199/${expected.length}`);
  assert.ok(Buffer.from(await part.arrayBuffer()).equals(expected.subarray(100, 200)));
  const suffix = await fetch(url, { headers: { range: 'bytes=-50' } });
  assert.equal(suffix.status, 206);
  assert.ok(Buffer.from(await suffix.arrayBuffer()).equals(expected.subarray(expected.length - 50)));
  const outside = await fetch(url, { headers: { range: `bytes=${expected.length + 10}-` } });
  assert.equal(outside.status, 416);
  assert.equal(outside.headers.get('content-range'), `bytes */${expected.length}`);
  const cached = await fetch(url, { headers: { 'if-none-match': etag } });
  assert.equal(cached.status, 304);
  // The file name percent-encoded, as the API's other path ids may be: the same preview.
  const encoded = url.replace('/previews/t', '/previews/%74');
  assert.notEqual(encoded, url);
  assert.equal((await fetch(encoded)).status, 200);
  // If-None-Match compares weakly: a cache that kept the tag as weak still gets its 304.
  assert.equal((await fetch(url, { headers: { 'if-none-match': `"other", W/${etag}` } })).status, 304);
  assert.equal((await fetch(url, { headers: { 'if-none-match': '"other"' } })).status, 200);

  const forged = url.replace(/sig=[^&]+/, 'sig=' + 'A'.repeat(43));
  assert.equal((await call(server.base, 'GET', forged.slice(server.base.length))).status, 403);
  const past = Math.floor(Date.now() / 1000) - 10;
  const expired = await call(server.base, 'GET', `${API}/previews/${track.id}.mp3?exp=${past}&sig=${previewSignature(server.service.previewSecret, track.id, past)}`);
  assert.equal(expired.status, 403);
  assert.match(expired.body.message, /expired/);
  assert.equal((await call(server.base, 'GET', `${API}/previews/${track.id}.mp3`)).status, 403);
  const otherTrack = url.replace(track.id, tracks['drums.mp3'].id);
  assert.equal((await fetch(otherTrack)).status, 403, 'a signature is for one track only');
  const unknown = signedPreviewUrl(server.base, server.service.previewSecret, 'trk_0000000000000000');
  assert.equal((await fetch(unknown)).status, 404);
});

test('a full engine queue is a 503 with Retry-After, and costs nothing', async () => {
  const busy = await startTestServer({ workers: 1, engineMaxQueue: 0, clipCacheBytes: 0 });
  try {
    const busyTracks = await ingestInto(busy, { 'a.mp3': climaxPiece(110, 70, 35) }, { 'a.mp3': 'A' });
    const key = await busy.newKey('pro');
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        fetch(`${busy.base}${API}/download-track`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ track_id: busyTracks['a.mp3'].id, duration_seconds: 40 + i, hit_point_seconds: 10 }),
        }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.arrayBuffer() })),
      ),
    );
    const ok = responses.filter((r) => r.status === 200).length;
    const refused = responses.filter((r) => r.status === 503);
    assert.ok(ok >= 1 && refused.length >= 1, `statuses ${responses.map((r) => r.status)}`);
    for (const r of refused) assert.equal(r.retryAfter, '1');
    const [row] = await busy.service.database.sql`SELECT credits FROM api_keys WHERE key_hash = ${hashApiKey(key)}`;
    assert.equal(row.credits, 50000 - ok);
  } finally {
    await busy.stop();
  }
});

test('a WAV master: the full download is the 320 kbps MP3 made from it, a clip is cut from its clip master; one credit each', async () => {
  const key = await server.newKey('starter');
  const dir = fs.mkdtempSync(path.join(server.dataDir, 'wav-in-'));
  const signal = drumPattern(110, 24);
  fs.writeFileSync(path.join(dir, 'drums.wav'), wavBytes([signal, signal], 44100, 'pcm24'));
  fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify([{ file: 'drums.wav', title: 'Drums (WAV)', artist: 'Test' }]));
  const storage = server.service.storage;
  const report = await ingestFolder({ sql: server.service.database.sql, pool: server.service.engine, dir, storage });
  assert.deepEqual(report.rejected, []);
  const [row] = await server.service.database.sql<TrackFiles[]>`SELECT * FROM tracks WHERE id = ${report.ingested[0].id}`;
  const before = await balance(key);

  const full = await download(key, { track_id: report.ingested[0].id });
  assert.equal(full.status, 200);
  assert.equal(full.headers.get('content-type'), 'audio/mpeg');
  assert.match(full.headers.get('content-disposition')!, /filename="Drums \(WAV\)\.mp3"/);
  const object = fullDownloadObject(row);
  const expected = { path: await storage.localPath(object.sha256, object.kind, object.extension) };
  assert.notEqual(expected.path, await originalPath(storage, row));
  assert.ok(Buffer.from(full.bytes).equals(fs.readFileSync(expected.path)), 'the 320 kbps MP3 made at ingest, not the WAV');
  const index = indexFrames(full.bytes);
  assert.equal(parseFrameHeader(full.bytes, index.offsets[0])!.bitrateKbps, 320);
  assert.equal(index.totalSamples, 24 * 44100);

  const clip = await download(key, { track_id: report.ingested[0].id, duration_seconds: 12.5 });
  assert.equal(clip.status, 200);
  assert.equal((await decodeMp3(clip.bytes)).channels[0].length, 12.5 * 44100);
  assert.equal(await balance(key), before - 2);
  fs.rmSync(dir, { recursive: true, force: true });
});
