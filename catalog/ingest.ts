// Ingestion of a folder of MP3s with a metadata sidecar: every file validated (MP3, not corrupt,
// 10 s to 20 min), analysed in the engine's pool, given a 30 s preview, stored content-addressed;
// then all accepted tracks are written in one transaction. Re-running on the same folder changes
// nothing (ids come from the audio's hash).
import fs from 'node:fs';
import path from 'node:path';
import type { Sql } from '../db/connect.ts';
import type { EnginePool } from '../engine/pool.ts';
import { indexFrames } from '../engine/mp3/frame-index.ts';
import { readMetadata, type TrackMetadata } from './metadata.ts';
import { sha256Hex, trackIdOf } from './store.ts';
import type { CatalogStorage } from './storage/catalog-storage.ts';

export const MIN_TRACK_SECONDS = 10;
export const MAX_TRACK_SECONDS = 20 * 60;
export const PREVIEW_SECONDS = 30;

export interface IngestReport {
  ingested: { id: string; file: string; title: string }[];
  unchanged: { id: string; file: string }[];
  rejected: { file: string; reason: string }[];
}

export interface IngestOptions {
  sql: Sql;
  pool: EnginePool;
  dir: string;
  /** Where the audio and previews are stored (storage/open-storage.ts). */
  storage: CatalogStorage;
  /** Parallel files (default: the pool's threads). */
  concurrency?: number;
  onProgress?: (done: number, total: number, file: string) => void;
}

interface Prepared {
  id: string;
  file: string;
  row: Record<string, unknown>;
}

export async function ingestFolder(options: IngestOptions): Promise<IngestReport> {
  const { sql, pool, dir, storage } = options;
  const report: IngestReport = { ingested: [], unchanged: [], rejected: [] };
  const { entries, rejected } = readMetadata(dir);
  for (const [file, reason] of rejected) report.rejected.push({ file, reason: `metadata: ${reason}` });
  const files = fs.readdirSync(dir).filter((f) => /\.mp3$/i.test(f)).sort();
  for (const file of files) if (!entries.has(file) && !rejected.has(file)) report.rejected.push({ file, reason: 'no metadata entry (title and artist are required)' });
  for (const file of entries.keys()) if (!files.includes(file)) report.rejected.push({ file, reason: 'listed in the metadata but not in the folder' });

  const work = files.filter((f) => entries.has(f));
  const existing = new Set((await sql<{ id: string }[]>`SELECT id FROM tracks`).map((r) => r.id));
  const seen = new Map<string, string>(); // id -> first file with that content
  const prepared: Prepared[] = [];
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (next < work.length) {
      const file = work[next++];
      try {
        const result = await prepareTrack(file, entries.get(file)!);
        if (result) prepared.push(result);
      } catch (err) {
        report.rejected.push({ file, reason: (err as Error).message });
      }
      options.onProgress?.(++done, work.length, file);
    }
  };

  async function prepareTrack(file: string, metadata: TrackMetadata): Promise<Prepared | undefined> {
    const bytes = new Uint8Array(fs.readFileSync(path.join(dir, file)));
    const sha = sha256Hex(bytes);
    const id = trackIdOf(sha);
    if (existing.has(id) || seen.has(id)) {
      report.unchanged.push({ id, file });
      return undefined;
    }
    seen.set(id, file);
    let index;
    try {
      index = indexFrames(bytes);
    } catch (err) {
      throw new Error(`not a usable MP3: ${(err as Error).message}`);
    }
    const duration = index.totalSamples / index.sampleRate;
    if (duration < MIN_TRACK_SECONDS) throw new Error(`too short: ${duration.toFixed(1)} s (minimum ${MIN_TRACK_SECONDS} s)`);
    if (duration > MAX_TRACK_SECONDS) throw new Error(`too long: ${duration.toFixed(0)} s (maximum ${MAX_TRACK_SECONDS} s)`);
    const stored = await storage.has(sha, 'audio');
    await storage.put(bytes, 'audio');
    try {
      const audioFile = await storage.localPath(sha, 'audio');
      const { analysis, bytes: analysisBytes } = await pool.analyse({ path: audioFile });
      const preview = await pool.clip({ path: audioFile, analysis: analysisBytes, durationSeconds: Math.min(PREVIEW_SECONDS, Math.floor(duration * 1000) / 1000) });
      const previewSha = await storage.put(preview.mp3, 'preview');
      return {
        id,
        file,
        row: {
          id,
          audio_sha256: sha,
          audio_bytes: bytes.length,
          preview_sha256: previewSha,
          title: metadata.title,
          artist: metadata.artist,
          duration_seconds: duration,
          bpm: metadata.bpm ?? Math.round(analysis.tempoBpm * 10) / 10,
          key: metadata.key ?? analysis.key,
          genre: metadata.genre ?? null,
          subgenres: metadata.subgenres ?? [],
          moods: metadata.moods ?? [],
          instruments: metadata.instruments ?? [],
          has_vocals: metadata.has_vocals ?? null,
          energy_level: metadata.energy_level ?? analysis.energyLevel,
          description: metadata.description ?? '',
          peak_seconds: analysis.peakSeconds,
          timbre: analysis.timbre ?? null,
          analysis: Buffer.from(analysisBytes.buffer, analysisBytes.byteOffset, analysisBytes.byteLength),
          source_file: file,
        },
      };
    } catch (err) {
      if (!stored) await storage.remove(sha, 'audio'); // no row will point at it
      throw new Error(`analysis failed: ${(err as Error).message}`);
    }
  }

  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? pool.status().threads) }, worker));
  prepared.sort((a, b) => a.file.localeCompare(b.file));
  if (prepared.length > 0) {
    await sql.begin(async (tx) => {
      for (const track of prepared) await tx`INSERT INTO tracks ${tx(track.row)} ON CONFLICT (id) DO NOTHING`;
    });
  }
  for (const track of prepared) report.ingested.push({ id: track.id, file: track.file, title: String(track.row.title) });
  report.rejected.sort((a, b) => a.file.localeCompare(b.file));
  return report;
}

export async function removeTrack(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql`UPDATE tracks SET removed_at = now() WHERE id = ${id} AND removed_at IS NULL RETURNING id`;
  return rows.length === 1;
}

export interface TrackListing {
  id: string;
  title: string;
  artist: string;
  genre: string | null;
  duration_seconds: number;
  bpm: number | null;
  key: string | null;
  energy_level: string | null;
  removed: boolean;
}

export function listTracks(sql: Sql): Promise<TrackListing[]> {
  return sql<TrackListing[]>`
    SELECT id, title, artist, genre, duration_seconds, bpm, key, energy_level, removed_at IS NOT NULL AS removed
      FROM tracks ORDER BY ingested_at, id`;
}
