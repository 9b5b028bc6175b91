// Masters of every format a library delivers, through the real ingest (engine pool, PostgreSQL,
// store): MP3 at other rates, bitrates, channel counts and VBR, WAV (16/24-bit PCM, 32-bit float)
// and FLAC. Each is kept as delivered, gets a 44.1 kHz stereo CBR 128 kbps gapless clip master
// (and, for WAV and FLAC, a 320 kbps full download), and its clips are spliced from that master,
// exact to the sample in length and in time against the original. Bad masters are each
// rejected with their reason and leave nothing in the store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startCatalogFixture, type CatalogFixture } from '../support/catalog-fixture.ts';
import type { Sql } from '../../db/connect.ts';
import type { EnginePool } from '../../engine/pool.ts';
import { ingestFolder } from '../../catalog/ingest.ts';
import { storePath } from '../../catalog/store.ts';
import { fileStorage } from '../../catalog/storage/file-storage.ts';
import { s3Storage } from '../../catalog/storage/s3-storage.ts';
import { startTestS3, TEST_BUCKET } from '../support/s3-server.ts';
import { clipMasterPath, fullDownloadObject, originalPath, type TrackFiles } from '../../catalog/track-files.ts';
import type { CatalogStorage } from '../../catalog/storage/catalog-storage.ts';
import { indexFrames } from '../../engine/mp3/frame-index.ts';
import { parseFrameHeader } from '../../engine/mp3/frame-header.ts';
import { decodeMp3, mp3Of } from '../support/audio.ts';
import { flacBytes, mp3WithSettings, wavBytes } from '../support/master-files.ts';
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';
import { resample } from '../../engine/masters/resample.ts';

/** The local file of the track's full download, and the size the catalog records. */
async function fullDownload(storage: CatalogStorage, track: TrackFiles): Promise<{ path: string; size: number }> {
  const object = fullDownloadObject(track);
  return { path: await storage.localPath(object.sha256, object.kind, object.extension), size: object.size };
}

const CLIP_RATE = 44100;
const TRACK_SECONDS = 14;
const CLIP_SECONDS = 8;

/**
 * A band-limited piece as a function of time (kicks on the beat at 120 BPM, a high blip on the
 * off-beats, a bass line), so it can be written at any sample rate and compared, at 44.1 kHz,
 * with what a clip plays.
 */
function pieceAt(rate: number, seconds = TRACK_SECONDS, pan = 1): Float32Array {
  const out = new Float32Array(Math.round(seconds * rate));
  for (let i = 0; i < out.length; i++) {
    const t = i / rate;
    const beat = t % 0.5;
    const offBeat = (t + 0.25) % 0.5;
    const kick = 0.6 * Math.sin(2 * Math.PI * (55 * beat + 0.6 * (1 - Math.exp(-beat / 0.02)))) * Math.exp(-beat / 0.09);
    const blip = 0.2 * Math.sin(2 * Math.PI * 3520 * offBeat) * Math.exp(-offBeat / 0.015);
    const bass = 0.15 * Math.sin(2 * Math.PI * [55, 65.4, 73.4, 49][Math.floor(t / 2) % 4] * t);
    out[i] = pan * (kick + blip + bass);
  }
  return out;
}

let fixture: CatalogFixture;
let sql: Sql;
let pool: EnginePool;
let root: string;

before(async () => {
  fixture = await startCatalogFixture('mla-masters-');
  ({ sql, pool, root } = fixture);
});
after(() => fixture.stop());

interface Master {
  file: string;
  bytes: Uint8Array;
  /** The original's audio at 44.1 kHz, left channel, as the clip must play it. */
  reference: () => Promise<Float32Array>;
  /** Whether the original is its own clip master (44.1 kHz stereo CBR 128 kbps MP3). */
  ownMaster?: boolean;
}

async function mp3Reference(bytes: Uint8Array): Promise<Float32Array> {
  const pcm = await decodeMp3(bytes);
  return resample(pcm.channels[0], pcm.sampleRate, CLIP_RATE);
}

async function masters(): Promise<Master[]> {
  const analytic = async () => pieceAt(CLIP_RATE);
  const stereoAt = (rate: number) => [pieceAt(rate), pieceAt(rate, TRACK_SECONDS, 0.8)];
  const list: Master[] = [
    { file: 'wav-48k-16.wav', bytes: wavBytes(stereoAt(48000), 48000, 'pcm16'), reference: analytic },
    { file: 'wav-44k-24-mono.wav', bytes: wavBytes([pieceAt(44100)], 44100, 'pcm24'), reference: analytic },
    { file: 'wav-32k-float.wav', bytes: wavBytes(stereoAt(32000), 32000, 'float32'), reference: analytic },
    { file: 'flac-44k-16.flac', bytes: flacBytes(stereoAt(44100), 44100, 16), reference: analytic },
    { file: 'flac-48k-24.flac', bytes: flacBytes(stereoAt(48000), 48000, 24), reference: analytic },
  ];
  const mp3s: [string, Uint8Array][] = [
    ['mp3-320.mp3', await encodeGaplessMp3(pieceAt(44100), pieceAt(44100, TRACK_SECONDS, 0.8), { bitrateKbps: 320 })],
    ['mp3-48k-mono-vbr.mp3', await mp3WithSettings([pieceAt(48000)], 48000, { vbrQuality: 2 })],
    ['mp3-22k-64.mp3', await mp3WithSettings(stereoAt(22050), 22050, { bitrateKbps: 64 })],
  ];
  for (const [file, bytes] of mp3s) list.push({ file, bytes, reference: () => mp3Reference(bytes) });
  list.push({ file: 'mp3-128.mp3', bytes: await mp3Of(pieceAt(44100)), reference: analytic, ownMaster: true });
  return list;
}

/** The lag (samples, within ±maxLag) at which `clip` best matches `reference` from `start` on, and that correlation. */
function bestLag(clip: Float32Array, reference: Float32Array, start: number, from: number, to: number, maxLag = 64): { lag: number; correlation: number } {
  let best = { lag: NaN, correlation: -Infinity };
  for (let lag = -maxLag; lag <= maxLag; lag++) {
    let dot = 0, a = 0, b = 0;
    for (let i = from; i < to; i++) {
      const r = reference[start + i + lag] ?? 0;
      dot += clip[i] * r;
      a += clip[i] * clip[i];
      b += r * r;
    }
    const correlation = dot / Math.sqrt(a * b || 1);
    if (correlation > best.correlation) best = { lag, correlation };
  }
  return best;
}

/** Share of the clip's frames from 0.5 s in to 0.5 s before its end that are byte for byte frames of `master`. */
function copiedShare(clip: Uint8Array, master: Uint8Array): number {
  const index = indexFrames(clip);
  const frameSeconds = 1152 / CLIP_RATE;
  const edge = Math.ceil(0.5 / frameSeconds);
  const masterBytes = Buffer.from(master);
  let found = 0, total = 0;
  for (let i = edge; i < index.offsets.length - edge; i++) {
    total += 1;
    if (masterBytes.indexOf(Buffer.from(clip.subarray(index.offsets[i], index.offsets[i] + index.sizes[i]))) >= 0) found += 1;
  }
  return found / total;
}

function bitratesOf(mp3: Uint8Array): Set<number> {
  const index = indexFrames(mp3);
  return new Set(Array.from(index.offsets, (offset) => parseFrameHeader(mp3, offset)!.bitrateKbps));
}

test('MP3 at any rate, bitrate and channel count, WAV and FLAC masters are ingested; their clips are spliced from the clip master, exact to the sample', async () => {
  const dir = path.join(root, 'formats');
  const store = path.join(root, 'store-formats');
  fs.mkdirSync(dir);
  const list = await masters();
  for (const master of list) fs.writeFileSync(path.join(dir, master.file), master.bytes);
  fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify(list.map((m) => ({ file: m.file, title: m.file, artist: 'Formats' }))));
  const storage = fileStorage(store);
  const report = await ingestFolder({ sql, pool, dir, storage });
  assert.deepEqual(report.rejected, []);
  assert.equal(report.ingested.length, list.length);

  for (const master of list) {
    const [row] = await sql<(TrackFiles & { duration_seconds: number; analysis: Buffer })[]>`SELECT * FROM tracks WHERE source_file = ${master.file}`;
    const format = path.extname(master.file).slice(1);
    assert.equal(row.audio_format, format, master.file);
    assert.ok(fs.readFileSync(await originalPath(storage, row)).equals(master.bytes), `${master.file}: the original is kept as delivered`);
    assert.ok(Math.abs(row.duration_seconds - TRACK_SECONDS) < 0.1, `${master.file}: duration ${row.duration_seconds}`);

    // The clip master: 44.1 kHz stereo CBR 128 kbps with the gapless tag, as long as the original.
    assert.equal(row.clip_master_sha256 === null, master.ownMaster === true, `${master.file}: clip master made unless the original is one`);
    const clipMaster = new Uint8Array(fs.readFileSync(await clipMasterPath(storage, row)));
    const masterIndex = indexFrames(clipMaster);
    assert.equal(masterIndex.sampleRate, CLIP_RATE);
    assert.equal(masterIndex.channels, 2);
    assert.deepEqual([...bitratesOf(clipMaster)], [128], `${master.file}: the clip master is CBR 128 kbps`);
    assert.ok(masterIndex.gapless, `${master.file}: the clip master carries the gapless tag`);
    assert.equal(masterIndex.totalSamples, Math.round(row.duration_seconds * CLIP_RATE), `${master.file}: the clip master is as long as the original`);

    // The full download: the MP3 original byte for byte; WAV and FLAC as a 320 kbps MP3 of the same length.
    const download = await fullDownload(storage, row);
    if (format === 'mp3') {
      assert.equal(row.download_sha256, null);
      assert.equal(download.path, await originalPath(storage, row));
    } else {
      const downloadBytes = new Uint8Array(fs.readFileSync(download.path));
      assert.equal(downloadBytes.length, download.size);
      assert.deepEqual([...bitratesOf(downloadBytes)], [320], `${master.file}: the download is CBR 320 kbps`);
      assert.equal(indexFrames(downloadBytes).totalSamples, masterIndex.totalSamples);
    }

    // A clip: spliced from the clip master, exactly CLIP_SECONDS long, in time with the original.
    const clip = await pool.clip({ path: await clipMasterPath(storage, row), analysis: new Uint8Array(row.analysis), durationSeconds: CLIP_SECONDS });
    assert.equal(clip.method, 'splice', `${master.file}: the clip is a splice`);
    assert.ok(copiedShare(clip.mp3, clipMaster) > 0.9, `${master.file}: the clip's inner frames are the clip master's own bytes`);
    const decoded = await decodeMp3(clip.mp3);
    assert.equal(decoded.channels[0].length, CLIP_SECONDS * CLIP_RATE, `${master.file}: exact length`);
    const sourceStart = clip.plan.parts[0].sourceStart;
    const { lag, correlation } = bestLag(decoded.channels[0], await master.reference(), sourceStart, CLIP_RATE, 3 * CLIP_RATE);
    assert.equal(lag, 0, `${master.file}: the clip plays the original from ${sourceStart} samples on (correlation ${correlation.toFixed(3)} at lag ${lag})`);
    assert.ok(correlation > 0.9, `${master.file}: correlation ${correlation}`);
  }
});

test('bad masters are each rejected with their reason and leave nothing in the store', async () => {
  const dir = path.join(root, 'bad');
  const store = path.join(root, 'store-bad');
  fs.mkdirSync(dir);
  const stereo48 = [pieceAt(48000, 12), pieceAt(48000, 12)];
  const flac = flacBytes(stereo48, 48000, 16);
  const wav = wavBytes(stereo48, 48000, 'pcm16');
  const files: Record<string, Uint8Array> = {
    'good.wav': wav,
    'truncated.flac': flac.subarray(0, Math.floor(flac.length * 0.6)),
    'lying-header.wav': wavBytes(stereo48, 48000, 'pcm16', { claimedDataBytes: (wav.length - 44) * 2 }),
    'eight-bit.wav': wavBytes(stereo48, 48000, 'pcm8'),
    'hi-res.wav': wavBytes([pieceAt(96000, 12), pieceAt(96000, 12)], 96000, 'pcm24'),
    'hi-res.flac': flacBytes([pieceAt(96000, 12)], 96000, 24),
    'surround.wav': wavBytes(Array.from({ length: 6 }, () => pieceAt(48000, 12)), 48000, 'pcm16'),
    'empty.wav': new Uint8Array(0),
    'empty.flac': new Uint8Array(0),
    'empty.mp3': new Uint8Array(0),
    'not-a-wav.wav': new TextEncoder().encode('this is not audio\n'.repeat(100)),
    'short.flac': flacBytes([pieceAt(44100, 4)], 44100, 16),
  };
  for (const [file, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), bytes);
  fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify(Object.keys(files).map((file) => ({ file, title: file, artist: 'Bad' }))));
  const storage = fileStorage(store);
  const report = await ingestFolder({ sql, pool, dir, storage });
  assert.deepEqual(report.ingested.map((t) => t.file), ['good.wav']);
  const reasons = Object.fromEntries(report.rejected.map((r) => [r.file, r.reason]));
  assert.match(reasons['truncated.flac'], /not a usable FLAC: truncated: \d+ of the 576000 samples/);
  assert.match(reasons['lying-header.wav'], /header says \d+ bytes of audio but the file holds \d+/);
  assert.match(reasons['eight-bit.wav'], /8-bit PCM is not accepted/);
  assert.match(reasons['hi-res.wav'], /sample rate 96000 Hz is above 48000 Hz/);
  assert.match(reasons['hi-res.flac'], /sample rate 96000 Hz is above 48000 Hz/);
  assert.match(reasons['surround.wav'], /6 channels: only mono and stereo/);
  for (const empty of ['empty.wav', 'empty.flac', 'empty.mp3']) assert.match(reasons[empty], /empty file \(0 bytes\)/);
  assert.match(reasons['not-a-wav.wav'], /not a usable WAV: no RIFF\/WAVE header/);
  assert.match(reasons['short.flac'], /too short: 4\.0 s/);
  assert.equal(report.rejected.length, Object.keys(files).length - 1);
  // Only the good master's files are in the store: its original, clip master, download and preview.
  const stored = fs.readdirSync(store, { recursive: true }).filter((f) => /\.(mp3|wav|flac)$/.test(String(f))).map(String).sort();
  const [good] = await sql<(TrackFiles & { preview_sha256: string })[]>`SELECT * FROM tracks WHERE source_file = 'good.wav'`;
  const goodFiles = [await originalPath(storage, good), await clipMasterPath(storage, good), (await fullDownload(storage, good)).path, storePath(store, good.preview_sha256, 'preview')];
  const expected = goodFiles.map((f) => path.relative(store, f)).sort();
  assert.deepEqual(stored, expected);
});

test('in a bucket, a FLAC master\'s original, clip master and download are objects another node reads, and clips from', async () => {
  const s3 = await startTestS3();
  const dirs = [fs.mkdtempSync(path.join(root, 'node-a-')), fs.mkdtempSync(path.join(root, 'node-b-'))];
  const [a, b] = dirs.map((cacheDir) => s3Storage({ bucket: TEST_BUCKET, prefix: 'masters/', endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, cacheDir, cacheBytes: 64 * 1024 * 1024 }));
  try {
    const dir = path.join(root, 'bucket-in');
    fs.mkdirSync(dir);
    const flac = flacBytes([pieceAt(48000), pieceAt(48000)], 48000, 24);
    fs.writeFileSync(path.join(dir, 'bucket.flac'), flac);
    fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify([{ file: 'bucket.flac', title: 'In a bucket', artist: 'Formats' }]));
    const report = await ingestFolder({ sql, pool, dir, storage: a });
    assert.deepEqual(report.rejected, []);
    const [row] = await sql<(TrackFiles & { analysis: Buffer })[]>`SELECT * FROM tracks WHERE id = ${report.ingested[0].id}`;
    // Node b's cache is empty: each object comes from the bucket.
    assert.ok(fs.readFileSync(await originalPath(b, row)).equals(flac));
    assert.ok((await originalPath(b, row)).endsWith('.flac'));
    assert.deepEqual([...bitratesOf(new Uint8Array(fs.readFileSync((await fullDownload(b, row)).path)))], [320]);
    const clip = await pool.clip({ path: await clipMasterPath(b, row), analysis: new Uint8Array(row.analysis), durationSeconds: CLIP_SECONDS });
    assert.equal(clip.method, 'splice');
    assert.equal((await decodeMp3(clip.mp3)).channels[0].length, CLIP_SECONDS * CLIP_RATE);
  } finally {
    await a.close();
    await b.close();
    await s3.stop();
  }
});
