// Catalog lookups for the routes: a track row (present, not removed) and its stored analysis,
// which is immutable per audio hash and so cached by bytes.
import { LRUCache } from 'lru-cache';
import type { Sql } from '../db/connect.ts';
import { TRACK_ID } from '../catalog/store.ts';
import { isCurrentAnalysis } from '../engine/analysis/serialise.ts';
import type { TrackFiles } from '../catalog/track-files.ts';

/** A present track: what the routes show of it, and its stored files (catalog/track-files.ts). */
export interface TrackRow extends TrackFiles {
  id: string;
  title: string;
  duration_seconds: number;
  preview_sha256: string;
  peak_seconds: number;
}

export interface TrackLookup {
  find(id: string): Promise<TrackRow | undefined>;
  analysis(track: TrackRow): Promise<Uint8Array>;
}

// Rows of present tracks are kept for a second: a busy track costs one query a second, not one
// per download, and a removal reaches every server process within that second. Concurrent misses
// of one id share one query (lru-cache's fetch), so the second's expiry under load is one query,
// not one per waiting request.
const ROW_TTL_MS = 1000;
const MAX_ROWS = 10_000;

/** Redoes an analysis stored by an older engine, from the track's audio (catalog/reanalyse.ts). */
export type ReanalyseAudio = (audioSha256: string) => Promise<Uint8Array>;

/**
 * The bytes in shared memory: an engine task carries the track's analysis, and a shared buffer
 * reaches the worker thread as the same memory rather than a copy (a 120 KB copy per POST
 * /clip-plan, and the garbage collections it caused in both threads).
 */
export function inSharedMemory(bytes: Uint8Array): Uint8Array {
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  shared.set(bytes);
  return shared;
}

export function createTrackLookup(sql: Sql, reanalyse: ReanalyseAudio, maxAnalysisBytes = 64 * 1024 * 1024): TrackLookup {
  // Keyed by audio hash, fetched by track id (the context); concurrent misses share one query too.
  const analyses = new LRUCache<string, Uint8Array, string>({
    maxSize: maxAnalysisBytes,
    sizeCalculation: (a) => a.byteLength,
    fetchMethod: async (sha256, _stale, { context: trackId }) => {
      const [row] = await sql<{ analysis: Buffer }[]>`SELECT analysis FROM tracks WHERE id = ${trackId}`;
      if (!row) throw new Error(`track ${trackId} has no stored analysis`);
      const stored = new Uint8Array(row.analysis);
      return inSharedMemory(isCurrentAnalysis(stored) ? stored : await reanalyse(sha256));
    },
  });
  const rows = new LRUCache<string, TrackRow>({
    max: MAX_ROWS,
    ttl: ROW_TTL_MS,
    fetchMethod: async (id) => {
      const [row] = await sql<TrackRow[]>`
        SELECT id, title, duration_seconds, preview_sha256, peak_seconds,
               audio_sha256, audio_bytes, audio_format, clip_master_sha256, download_sha256, download_bytes
          FROM tracks WHERE id = ${id} AND removed_at IS NULL`;
      return row; // undefined (not found) is not cached
    },
  });
  return {
    // An id not of our shape is in no catalog, and need not reach PostgreSQL (which rejects some
    // strings a client can send in JSON, such as a NUL character, with an error).
    find: (id) => (TRACK_ID.test(id) ? rows.fetch(id) : Promise.resolve(undefined)),
    analysis: async (track) => (await analyses.fetch(track.audio_sha256, { context: track.id }))!,
  };
}
