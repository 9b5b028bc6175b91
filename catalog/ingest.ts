// Ingestion of a folder of masters (MP3, WAV, FLAC) with a metadata sidecar: every new original
// stored and queued as a job (ingest-jobs.ts), the jobs made into rows (track-row.ts: validated,
// given its clip master, analysed, previewed) by this run's workers and those of every running
// node, a refused one reported with its reason. Ids come from the original's hash, so re-running
// on the same folder changes nothing, and re-running an ingest that was stopped (Ctrl-C, a crash)
// goes on where it stopped: the tracks written are found unchanged, the jobs left pending are made,
// none twice.
import fs from 'node:fs';
import path from 'node:path';
import type { Sql } from '../db/connect.ts';
import type { EnginePool } from '../engine/pool.ts';
import { readMetadata } from './metadata.ts';
import { sha256Hex, trackIdOf } from './store.ts';
import { masterFormatOf } from './master-files.ts';
import { jobStates, queueMaster, runOneJob } from './ingest-jobs.ts';
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

/** How often a run whose workers found no free job looks again (its last jobs are being made elsewhere). */
const IDLE_LOOK_MS = 500;

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
  const queued = new Map<string, string>(); // sha256 -> file
  let queueing = true;
  let empty = 0;

  // Queue: every new original stored and its job queued, while the workers below already make them.
  const queue = async () => {
    try {
      for (const file of work) {
        const bytes = new Uint8Array(fs.readFileSync(path.join(dir, file)));
        // Before the hash: empty files all share one, and would be reported as copies of each other.
        if (bytes.length === 0) {
          report.rejected.push({ file, reason: 'empty file (0 bytes)' });
          empty++;
          continue;
        }
        const sha256 = sha256Hex(bytes);
        const id = trackIdOf(sha256);
        if (existing.has(id) || seen.has(id)) {
          report.unchanged.push({ id, file });
          continue;
        }
        seen.set(id, file);
        await queueMaster({ sql, storage }, { file, format: masterFormatOf(file)!, bytes, sha256, metadata: entries.get(file)! });
        queued.set(sha256, file);
      }
    } finally {
      queueing = false;
    }
  };

  // Work: this run's workers take any pending job (this folder's, or another's) until none is left
  // and this folder's are all finished, by them or by the workers of other processes.
  let finished = 0;
  const progress = async () => {
    const states = await jobStates(sql, [...queued.keys()]);
    const now = [...states.values()].filter((job) => job.state !== 'pending').length + report.unchanged.length + empty;
    if (now !== finished) options.onProgress?.((finished = now), work.length, '');
    return states;
  };
  const worker = async () => {
    for (;;) {
      if (await runOneJob({ sql, pool, storage })) {
        await progress();
        continue;
      }
      if (!queueing && [...(await progress()).values()].every((job) => job.state !== 'pending')) return;
      await new Promise((resolve) => setTimeout(resolve, IDLE_LOOK_MS));
    }
  };
  await Promise.all([queue(), ...Array.from({ length: Math.max(1, options.concurrency ?? pool.status().threads) }, worker)]);

  for (const [sha256, job] of await jobStates(sql, [...queued.keys()])) {
    const file = queued.get(sha256)!;
    if (job.state === 'done') report.ingested.push({ id: trackIdOf(sha256), file, title: entries.get(file)!.title });
    else report.rejected.push({ file, reason: job.reason ?? 'rejected' });
  }
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
