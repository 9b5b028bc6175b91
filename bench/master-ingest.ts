// Ingest throughput per master format: the demo catalog's songs delivered as 128 kbps MP3s (their
// own clip masters), as 320 kbps MP3s, as 16-bit WAVs and as FLACs, each folder ingested on its own
// by one process with the engine's pool; and FLAC masters ingested by one process and by two
// processes sharing the job queue.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import type { Sql } from '../db/connect.ts';
import type { EnginePool } from '../engine/pool.ts';
import { ingestFolder } from '../catalog/ingest.ts';
import { fileStorage } from '../catalog/storage/file-storage.ts';
import { indexFrames } from '../engine/mp3/frame-index.ts';
import { decodeAll } from '../engine/mp3/decode.ts';
import { encodeGaplessMp3 } from '../engine/mp3/encode.ts';
import { flacBytes, wavBytes } from '../test/support/master-files.ts';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

type Deliver = (left: Float32Array, right: Float32Array) => Promise<Uint8Array> | Uint8Array;

const DELIVERIES: [string, string, Deliver][] = [
  ['MP3 320 kbps', 'mp3', (l, r) => encodeGaplessMp3(l, r, { bitrateKbps: 320 })],
  ['WAV 16-bit', 'wav', (l, r) => wavBytes([l, r], 44100, 'pcm16')],
  ['FLAC 16-bit', 'flac', (l, r) => flacBytes([l, r], 44100, 16)],
];

/** One line per format: the demo MP3s in `generated` (with their metadata.json), then each other delivery of them. */
export async function masterIngestLines(options: { sql: Sql; pool: EnginePool; root: string; generated: string; audioSeconds: number }): Promise<string[]> {
  const { root, generated, audioSeconds } = options;
  const sidecar = JSON.parse(fs.readFileSync(path.join(generated, 'metadata.json'), 'utf8')) as { tracks: { file: string }[] };
  const entries = sidecar.tracks;
  const folders: [string, string][] = [['MP3 128 kbps (its own clip master)', generated]];
  for (const [label, extension, deliver] of DELIVERIES) {
    const dir = path.join(root, `as-${label.replace(/\W+/g, '-')}`);
    fs.mkdirSync(dir);
    const renamed = [];
    for (const entry of entries) {
      const mp3 = new Uint8Array(fs.readFileSync(path.join(generated, entry.file)));
      const pcm = await decodeAll(mp3, indexFrames(mp3));
      const file = entry.file.replace(/\.mp3$/i, `.${extension}`);
      fs.writeFileSync(path.join(dir, file), await deliver(pcm.channels[0], pcm.channels[1]));
      renamed.push({ ...entry, file });
    }
    fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify({ ...sidecar, tracks: renamed }));
    folders.push([label, dir]);
  }
  const lines: string[] = [];
  for (const [label, dir] of folders) {
    const started = performance.now();
    const report = await ingestFolder({ sql: options.sql, pool: options.pool, dir, storage: fileStorage(path.join(root, `store-${path.basename(dir)}`)) });
    const seconds = (performance.now() - started) / 1000;
    if (report.ingested.length !== entries.length) throw new Error(`${label}: ingested ${report.ingested.length}/${entries.length}: ${JSON.stringify(report.rejected)}`);
    lines.push(`ingest ${entries.length} songs as ${label}: ${seconds.toFixed(1)} s = ${(audioSeconds / seconds).toFixed(1)}x realtime`);
  }
  return lines;
}

/** `npm run catalog -- ingest DIR` as its own process, with `workers` engine threads; resolves when it exits. */
function cliIngest(dir: string, env: Record<string, string>, workers: number): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'catalog/cli.ts', 'ingest', dir], { cwd: ROOT, env: { ...process.env, ...env, WORKERS: String(workers) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (d) => (errors += d));
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ingest exited ${code}: ${errors}`)))));
}

/**
 * Ingest spread over processes: FLAC masters of `songs` (in two halves of other songs, so that none
 * is already in the catalog) ingested by one CLI process with 2 engine threads, and by two CLI
 * processes with 1 each working on one queue at once.
 */
export async function processSpreadLines(options: { databaseUrl: string; root: string; generated: string; songSeconds: number[] }): Promise<string[]> {
  const sidecar = JSON.parse(fs.readFileSync(path.join(options.generated, 'metadata.json'), 'utf8')) as { tracks: { file: string }[] };
  const half = Math.floor(sidecar.tracks.length / 2);
  const halves = [sidecar.tracks.slice(0, half), sidecar.tracks.slice(half)];
  const env = { DATABASE_URL: options.databaseUrl, DATA_DIR: path.join(options.root, 'spread-data') };
  const lines: string[] = [];
  for (const [i, processes] of [1, 2].entries()) {
    const dir = path.join(options.root, `spread-${processes}`);
    fs.mkdirSync(dir);
    for (const entry of halves[i]) {
      const mp3 = new Uint8Array(fs.readFileSync(path.join(options.generated, entry.file)));
      const pcm = await decodeAll(mp3, indexFrames(mp3));
      fs.writeFileSync(path.join(dir, entry.file.replace(/\.mp3$/i, '.flac')), flacBytes([pcm.channels[0], pcm.channels[1]], 44100, 16));
    }
    fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify({ ...sidecar, tracks: halves[i].map((e) => ({ ...e, file: e.file.replace(/\.mp3$/i, '.flac') })) }));
    const seconds = options.songSeconds.slice(i * half, i * half + halves[i].length).reduce((a, b) => a + b, 0);
    const started = performance.now();
    await Promise.all(Array.from({ length: processes }, () => cliIngest(dir, env, 2 / processes)));
    const took = (performance.now() - started) / 1000;
    lines.push(`ingest ${halves[i].length} FLAC masters, ${processes === 1 ? 'one process with 2 engine threads' : 'two processes with 1 engine thread each, on one queue'}: ${took.toFixed(1)} s = ${(seconds / took).toFixed(1)}x realtime`);
  }
  return lines;
}
