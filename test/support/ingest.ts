// Catalog set-up for tests: synthetic signals encoded to MP3, ingested through the real pipeline.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Sql } from '../../db/connect.ts';
import type { EnginePool } from '../../engine/pool.ts';
import { ingestFolder, type IngestReport } from '../../catalog/ingest.ts';
import { mp3Of } from './audio.ts';
import type { CatalogStorage } from '../../catalog/storage/catalog-storage.ts';

export interface SignalTrack {
  file: string;
  signal: Float32Array;
  /** The sidecar entry without `file`: title and artist at least. */
  metadata: Record<string, unknown>;
}

/** Writes the tracks and their metadata.json to a scratch folder, ingests it, and checks none was rejected. */
export async function ingestSignals(options: { sql: Sql; pool: EnginePool; storage: CatalogStorage; tracks: SignalTrack[] }): Promise<IngestReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-in-'));
  try {
    for (const track of options.tracks) fs.writeFileSync(path.join(dir, track.file), await mp3Of(track.signal));
    fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify(options.tracks.map((t) => ({ file: t.file, ...t.metadata }))));
    const report = await ingestFolder({ sql: options.sql, pool: options.pool, dir, storage: options.storage });
    assert.deepEqual(report.rejected, []);
    return report;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
