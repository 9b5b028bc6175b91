// Ingest as jobs in PostgreSQL (migration 021), so that it resumes after a crash and spreads over
// every process that works on it: the catalog CLI that queued the jobs and every running node.
//   queue  the original is stored, then its job inserted (once per original: its SHA-256);
//   claim  a worker locks one pending job's row (FOR UPDATE SKIP LOCKED) in a transaction;
//   make   the master is made into its row (track-row.ts) while the row stays locked;
//   finish the track is written and the job marked done (or rejected, with the reason) in that
//          same transaction: a job is done exactly when its track is written.
// A worker that dies mid-job holds nothing: its transaction ends with its connection, the job is
// pending again and the next claim takes it. A job of a refused master is kept, rejected, so the
// same file queued again is reported with its reason without being made again.
import os from 'node:os';
import fs from 'node:fs';
import type { Sql } from '../db/connect.ts';
import type { EnginePool } from '../engine/pool.ts';
import { isDatabaseUnavailable } from '../db/failures.ts';
import type { MasterFormat } from '../engine/masters/master-shape.ts';
import type { TrackMetadata } from './metadata.ts';
import { StorageUnavailable, StoredObjectMissing, type CatalogStorage } from './storage/catalog-storage.ts';
import { trackRow } from './track-row.ts';

/** The channel a queued job is announced on: idle workers wake at once instead of at their next look. */
export const INGEST_CHANNEL = 'ingest_jobs';

export interface JobDeps {
  sql: Sql;
  pool: EnginePool;
  storage: CatalogStorage;
}

export type JobState = 'pending' | 'done' | 'rejected';

export interface QueuedJob {
  sha256: string;
  state: JobState;
  reason: string | null;
}

/**
 * Stores the original and queues its job, announced to the listening workers. An original queued
 * before keeps its job and state (pending after a crash, done, or rejected with its reason); a
 * pending one's original is stored again if the store lost it, so that its job can be made.
 */
export async function queueMaster(deps: Pick<JobDeps, 'sql' | 'storage'>, master: { file: string; format: MasterFormat; bytes: Uint8Array; sha256: string; metadata: TrackMetadata }): Promise<void> {
  const { sql, storage } = deps;
  const [queued] = await sql<{ state: JobState }[]>`SELECT state FROM ingest_jobs WHERE sha256 = ${master.sha256}`;
  if (queued && queued.state !== 'pending') return;
  await storage.put(master.bytes, 'audio', master.format);
  if (queued) return;
  await sql`
    WITH queued AS (
      INSERT INTO ingest_jobs (sha256, file, format, metadata) VALUES (${master.sha256}, ${master.file}, ${master.format}, ${sql.json(master.metadata as never)})
      ON CONFLICT (sha256) DO NOTHING RETURNING 1)
    SELECT pg_notify(${INGEST_CHANNEL}, '') FROM queued`;
}

/** Who finishes a job (done_by): this host and process. */
const WORKER_NAME = `${os.hostname()}:${process.pid}`;

/**
 * Claims one pending job, makes it and finishes it. Returns false when no job was free (none
 * pending, or all taken by other workers). A database or store that fails is thrown (the job stays
 * pending); a master that cannot be made is its job's rejection.
 */
export async function runOneJob(deps: JobDeps): Promise<boolean> {
  return deps.sql.begin(async (tx) => {
    const [job] = await tx<{ sha256: string; file: string; format: MasterFormat; metadata: TrackMetadata }[]>`
      SELECT sha256, file, format, metadata FROM ingest_jobs WHERE state = 'pending' ORDER BY queued_at, file LIMIT 1 FOR UPDATE SKIP LOCKED`;
    if (!job) return false;
    let row: Record<string, unknown> | undefined;
    let reason: string | undefined;
    try {
      const bytes = new Uint8Array(await fs.promises.readFile(await deps.storage.localPath(job.sha256, 'audio', job.format)));
      row = await trackRow(deps, { file: job.file, format: job.format, bytes, sha256: job.sha256, metadata: job.metadata });
    } catch (err) {
      // The job's own failures reject it; the database's or the store's leave it pending for later.
      if (isDatabaseUnavailable(err) || isStoreFailure(err)) throw err;
      reason = (err as Error).message;
    }
    if (row) await tx`INSERT INTO tracks ${tx(row)} ON CONFLICT (id) DO NOTHING`;
    else await deps.storage.remove(job.sha256, 'audio', job.format); // no row will point at it
    await tx`
      UPDATE ingest_jobs SET state = ${row ? 'done' : 'rejected'}, reason = ${reason ?? null}, done_by = ${WORKER_NAME}, finished_at = now()
       WHERE sha256 = ${job.sha256}`;
    return true;
  });
}

/**
 * A failure of where the job's files are kept, not of its master: the object store away, the
 * original gone from it or damaged (a node pointed at the wrong prefix), or this node's disk (full,
 * unwritable: a system call's error). Rejecting the job for it would refuse a good file for good,
 * and remove its original; left pending, it is made once the store is back.
 */
function isStoreFailure(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    if (e instanceof StorageUnavailable || e instanceof StoredObjectMissing) return true;
    if (typeof (e as NodeJS.ErrnoException).syscall === 'string') return true;
  }
  return false;
}

/** The states of the jobs of these originals. */
export async function jobStates(sql: Sql, sha256s: string[]): Promise<Map<string, QueuedJob>> {
  if (sha256s.length === 0) return new Map();
  const rows = await sql<QueuedJob[]>`SELECT sha256, state, reason FROM ingest_jobs WHERE sha256 = ANY(${sql.array(sha256s)})`;
  return new Map(rows.map((row) => [row.sha256, row]));
}
