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
import { masterFormatOf, masterFormatOfContent } from './master-files.ts';
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

/** A file's bytes, or why it cannot be a master: not a regular file, unreadable, or empty. */
function readMaster(dir: string, file: string): { bytes: Uint8Array } | { reason: string } {
  const full = path.join(dir, file);
  const unreadable = (err: unknown) => ({ reason: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
  let stat: fs.Stats;
  try {
    stat = fs.statSync(full); // follows a link: a loop or a missing target is an error here
  } catch (err) {
    return unreadable(err);
  }
  // A pipe would block the whole run on its read; a directory or a device is no master either.
  if (!stat.isFile()) return { reason: 'not a regular file (a directory, pipe or device)' };
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(fs.readFileSync(full));
  } catch (err) {
    return unreadable(err);
  }
  // Before the hash: empty files all share one, and would be reported as copies of each other.
  if (bytes.length === 0) return { reason: 'empty file (0 bytes)' };
  return { bytes };
}

/** The folder's entries by name; a name that is not UTF-8 cannot be opened by it, nor matched to its metadata. */
function folderNames(dir: string): { names: string[]; badNames: string[] } {
  const names: string[] = [];
  const badNames: string[] = [];
  for (const raw of fs.readdirSync(dir, { encoding: 'buffer' })) {
    const name = raw.toString('utf8');
    (Buffer.from(name, 'utf8').equals(raw) ? names : badNames).push(name);
  }
  return { names, badNames };
}

export async function ingestFolder(options: IngestOptions): Promise<IngestReport> {
  const { sql, pool, dir, storage } = options;
  const report: IngestReport = { ingested: [], unchanged: [], rejected: [] };
  const { entries, rejected } = readMetadata(dir);
  for (const [file, reason] of rejected) report.rejected.push({ file, reason: `metadata: ${reason}` });
  const { names, badNames } = folderNames(dir);
  for (const file of badNames) report.rejected.push({ file, reason: 'its name is not valid UTF-8: rename it' });
  const files = names.filter((f) => masterFormatOf(f) !== undefined).sort();
  for (const file of files) if (!entries.has(file) && !rejected.has(file)) report.rejected.push({ file, reason: 'no metadata entry (title and artist are required)' });
  for (const file of entries.keys()) {
    if (files.includes(file)) continue;
    report.rejected.push({ file, reason: names.includes(file) ? 'not a master format: MP3, WAV or FLAC' : 'listed in the metadata but not in the folder' });
  }

  const work = files.filter((f) => entries.has(f));
  const existing = new Set((await sql<{ id: string }[]>`SELECT id FROM tracks`).map((r) => r.id));
  const seen = new Map<string, string>(); // id -> first file with that content
  const copies: { file: string; of: string }[] = []; // files with the content of one queued before them
  const queued = new Map<string, string>(); // sha256 -> file
  let queueing = true;
  let settledEarly = 0; // files settled without a job: unreadable, empty, or copies

  // Queue: every new original stored and its job queued, while the workers below already make them.
  const queue = async () => {
    try {
      for (const file of work) {
        const read = readMaster(dir, file);
        if ('reason' in read) {
          report.rejected.push({ file, reason: read.reason });
          settledEarly++;
          continue;
        }
        const { bytes } = read;
        const sha256 = sha256Hex(bytes);
        const id = trackIdOf(sha256);
        if (existing.has(id)) {
          report.unchanged.push({ id, file });
          continue;
        }
        const first = seen.get(id);
        if (first !== undefined) {
          copies.push({ file, of: first }); // settled as its first file is, below
          settledEarly++;
          continue;
        }
        seen.set(id, file);
        const format = masterFormatOfContent(bytes) ?? masterFormatOf(file)!;
        await queueMaster({ sql, storage }, { file, format, bytes, sha256, metadata: entries.get(file)! });
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
    const now = [...states.values()].filter((job) => job.state !== 'pending').length + report.unchanged.length + settledEarly;
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
  // Every part runs to its end before a failure is thrown: the pool must outlive the jobs being made.
  const parts = await Promise.allSettled([queue(), ...Array.from({ length: Math.max(1, options.concurrency ?? pool.status().threads) }, worker)]);
  const failed = parts.find((part): part is PromiseRejectedResult => part.status === 'rejected');
  if (failed) throw failed.reason;

  const outcomes = new Map<string, { id: string } | { reason: string }>(); // file -> how it ended
  for (const [sha256, job] of await jobStates(sql, [...queued.keys()])) {
    const file = queued.get(sha256)!;
    const id = trackIdOf(sha256);
    if (job.state === 'done') report.ingested.push({ id, file, title: entries.get(file)!.title });
    else report.rejected.push({ file, reason: job.reason ?? 'rejected' });
    outcomes.set(file, job.state === 'done' ? { id } : { reason: job.reason ?? 'rejected' });
  }
  for (const { file, of } of copies) {
    const outcome = outcomes.get(of);
    if (outcome && 'id' in outcome) report.unchanged.push({ id: outcome.id, file });
    else report.rejected.push({ file, reason: `the same content as ${of}${outcome ? `: ${outcome.reason}` : ''}` });
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
