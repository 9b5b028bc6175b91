// First start: build the demo catalog once (render, then ingest like any folder), with progress.
import fs from 'node:fs';
import path from 'node:path';
import type { Sql } from '../db/connect.ts';
import type { EnginePool } from '../engine/pool.ts';
import { generateDemoCatalog } from './demo/generate.ts';
import { ingestFolder } from './ingest.ts';
import { progressBar } from './progress.ts';
import type { CatalogStorage } from './storage/catalog-storage.ts';

/** Fits the 2-minute first-start budget on a 2-core machine (npm run bench -- catalog). */
export const DEFAULT_DEMO_TRACKS = 20;

export async function ensureDemoCatalog(options: { sql: Sql; pool: EnginePool; storage: CatalogStorage; dataDir: string; tracks?: number; log?: (line: string) => void }): Promise<void> {
  const tracks = options.tracks ?? DEFAULT_DEMO_TRACKS;
  const marker = path.join(options.dataDir, 'demo-catalog.done');
  if (tracks === 0 || fs.existsSync(marker)) return;
  const [{ count }] = await options.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM tracks`;
  if (count > 0) return; // a catalog is already there (ingested by hand)
  const log = options.log ?? ((line: string) => console.error(line));
  const started = performance.now();
  log(`Building the demo catalog (${tracks} tracks, once)...`);
  const dir = path.join(options.dataDir, 'demo-source');
  await generateDemoCatalog({ dir, tracks, onProgress: progressBar('  rendering') });
  const report = await ingestFolder({ sql: options.sql, pool: options.pool, dir, storage: options.storage, onProgress: progressBar('  ingesting') });
  for (const { file, reason } of report.rejected) log(`  rejected ${file}: ${reason}`);
  fs.writeFileSync(marker, `${new Date().toISOString()} ${report.ingested.length} tracks\n`);
  log(`Demo catalog ready: ${report.ingested.length} tracks in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
