// The first tracks of the demo catalog rendered and ingested through the real pipeline, for tests
// that need real audio behind the metadata, with sidecar fields left out so the analysis supplies
// them. Rendering and encoding take ~5 s a track, so tests render a few and add the rest of the
// catalog as metadata rows (catalog-rows.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Sql } from '../../db/connect.ts';
import type { EnginePool } from '../../engine/pool.ts';
import { generateDemoCatalog, DEFAULT_SEED } from '../../catalog/demo/generate.ts';
import { ingestFolder } from '../../catalog/ingest.ts';

export async function ingestRenderedDemo(options: { sql: Sql; pool: EnginePool; storeDir: string; tracks: number; fromAnalysis: string[] }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-demo-'));
  try {
    await generateDemoCatalog({ dir, tracks: options.tracks, seed: DEFAULT_SEED });
    const sidecar = path.join(dir, 'metadata.json');
    const metadata = JSON.parse(fs.readFileSync(sidecar, 'utf8'));
    for (const track of metadata.tracks) for (const field of options.fromAnalysis) delete track[field];
    fs.writeFileSync(sidecar, JSON.stringify(metadata));
    const report = await ingestFolder({ sql: options.sql, pool: options.pool, dir, storeDir: options.storeDir });
    assert.deepEqual(report.rejected, []);
    assert.equal(report.ingested.length, options.tracks);
    return report;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
