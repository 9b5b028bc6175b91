// Ingestion of a folder of masters (MP3, WAV, FLAC) with a metadata sidecar: every new file made
// into its row (track-row.ts: validated, stored, given its clip master, analysed, previewed) and
// the row written as soon as it is made, a refused one reported with its reason. Ids come from the
// original's hash, so re-running on the same folder changes nothing, and re-running an ingest
// that was stopped (Ctrl-C, a crash) goes on where it stopped: the files whose rows were written
// are found unchanged, and only the others are made, none twice.
import fs from 'node:fs';
import path from 'node:path';
import type { Sql } from '../db/connect.ts';
import type { EnginePool } from '../engine/pool.ts';
import { readMetadata, type TrackMetadata } from './metadata.ts';
import { sha256Hex, trackIdOf } from './store.ts';
import { masterFormatOf } from './master-files.ts';
import { trackRow } from './track-row.ts';
import type { CatalogStorage } from './storage/catalog-storage.ts';

export interface IngestReport {
  ingested: { id: string; file: string; title: string }[];
  unchanged: { id: string; file: string }[];
  rejected: { file: string; reason: string }[];
}

export interface IngestOptions {
  sql: Sql;
  pool: EnginePool;
  dir: string;
  /** Where the originals, clip masters, downloads and previews are stored (storage/open-storage.ts). */
  storage: CatalogStorage;
  /** Parallel files (default: the pool's threads). */
  concurrency?: number;
  onProgress?: (done: number, total: number, file: string) => void;
}

export async function ingestFolder(options: IngestOptions): Promise<IngestReport> {
  const { sql, pool, dir, storage } = options;
  const report: IngestReport = { ingested: [], unchanged: [], rejected: [] };
  const { entries, rejected } = readMetadata(dir);
  for (const [file, reason] of rejected) report.rejected.push({ file, reason: `metadata: ${reason}` });
  const files = fs.readdirSync(dir).filter((f) => masterFormatOf(f) !== undefined).sort();
  for (const file of files) if (!entries.has(file) && !rejected.has(file)) report.rejected.push({ file, reason: 'no metadata entry (title and artist are required)' });
  for (const file of entries.keys()) if (!files.includes(file)) report.rejected.push({ file, reason: 'listed in the metadata but not in the folder' });

  const work = files.filter((f) => entries.has(f));
  const existing = new Set((await sql<{ id: string }[]>`SELECT id FROM tracks`).map((r) => r.id));
  const seen = new Map<string, string>(); // id -> first file with that content
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (next < work.length) {
      const file = work[next++];
      let row: Record<string, unknown> | undefined;
      try {
        row = await newRow(file, entries.get(file)!);
      } catch (err) {
        report.rejected.push({ file, reason: (err as Error).message });
      }
      // Written at once, outside the try: a database that fails ends the ingest (it is not the file's fault).
      if (row) {
        await sql`INSERT INTO tracks ${sql(row)} ON CONFLICT (id) DO NOTHING`;
        report.ingested.push({ id: String(row.id), file, title: String(row.title) });
      }
      options.onProgress?.(++done, work.length, file);
    }
  };

  /** The row of a file whose content is new to the catalog; undefined (reported unchanged) otherwise. */
  async function newRow(file: string, metadata: TrackMetadata): Promise<Record<string, unknown> | undefined> {
    const bytes = new Uint8Array(fs.readFileSync(path.join(dir, file)));
    // Before the hash: empty files all share one, and would be reported as copies of each other.
    if (bytes.length === 0) throw new Error('empty file (0 bytes)');
    const sha = sha256Hex(bytes);
    const id = trackIdOf(sha);
    if (existing.has(id) || seen.has(id)) {
      report.unchanged.push({ id, file });
      return undefined;
    }
    seen.set(id, file);
    return trackRow({ pool, storage }, { file, format: masterFormatOf(file)!, bytes, sha256: sha, metadata });
  }

  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? pool.status().threads) }, worker));
  for (const list of [report.ingested, report.unchanged, report.rejected]) list.sort((a, b) => a.file.localeCompare(b.file));
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
