// Catalog speed: rendering the demo catalog (tracks per minute, x realtime), ingesting it
// (tracks per minute, x realtime), ingesting it again as masters of each other format
// (master-ingest.ts), and the first start of `npm start` on an empty data dir.
// CATALOG_PARTS (a comma list of formats, first-start; both by default) picks the optional parts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemoCatalog } from '../catalog/demo/generate.ts';
import { ingestFolder } from '../catalog/ingest.ts';
import { DEFAULT_DEMO_TRACKS } from '../catalog/demo-catalog.ts';
import { createEnginePool } from '../engine/pool.ts';
import { connectSql } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import { spawnServer } from '../test/support/server.ts';
import { scratchDatabase } from './scratch-database.ts';
import { machineLine } from './machine.ts';
import { masterIngestLines, processSpreadLines } from './master-ingest.ts';
import { fileStorage } from '../catalog/storage/file-storage.ts';

const TRACKS = 8;
/** Songs of the catalog delivered again in each master format. */
const FORMAT_TRACKS = 4;
const PARTS = new Set((process.env.CATALOG_PARTS ?? 'formats,first-start').split(','));

export async function benchCatalog(): Promise<string> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-bench-catalog-'));
  fs.chmodSync(root, 0o755);
  const db = await scratchDatabase();
  const sql = connectSql(db.url, 4);
  const pool = createEnginePool();
  try {
    await migrate(sql);
    const dir = path.join(root, 'generated');
    let started = performance.now();
    const tracks = await generateDemoCatalog({ dir, tracks: TRACKS, seed: 777 });
    const renderSeconds = (performance.now() - started) / 1000;
    const audioSeconds = tracks.reduce((n, t) => n + t.ground_truth.duration_seconds, 0);

    started = performance.now();
    const report = await ingestFolder({ sql, pool, dir, storage: fileStorage(path.join(root, 'store')) });
    const ingestSeconds = (performance.now() - started) / 1000;
    if (report.ingested.length !== TRACKS) throw new Error(`ingested ${report.ingested.length}/${TRACKS}: ${JSON.stringify(report.rejected)}`);

    const lines = [
      machineLine(),
      `render ${TRACKS} demo tracks (${(audioSeconds / 60).toFixed(1)} min of audio, worker threads, incl. MP3 encode): ${renderSeconds.toFixed(1)} s = ${((TRACKS / renderSeconds) * 60).toFixed(1)} tracks/min, ${(audioSeconds / renderSeconds).toFixed(1)}x realtime`,
      `ingest them (validate, store, queue, decode+analyse, preview, each track written when made): ${ingestSeconds.toFixed(1)} s = ${((TRACKS / ingestSeconds) * 60).toFixed(1)} tracks/min, ${(audioSeconds / ingestSeconds).toFixed(1)}x realtime`,
    ];
    if (PARTS.has('formats')) {
      const generated = path.join(root, 'formats-generated');
      const some = await generateDemoCatalog({ dir: generated, tracks: FORMAT_TRACKS, seed: 778 });
      const seconds = some.reduce((n, t) => n + t.ground_truth.duration_seconds, 0);
      lines.push(`per master format, ${FORMAT_TRACKS} other demo songs (${(seconds / 60).toFixed(1)} min), one process, ${pool.status().threads} engine threads:`);
      lines.push(...(await masterIngestLines({ sql, pool, root, generated, audioSeconds: seconds })));
      const spread = path.join(root, 'spread-generated');
      const spreadSongs = await generateDemoCatalog({ dir: spread, tracks: 2 * FORMAT_TRACKS, seed: 779 });
      lines.push(...(await processSpreadLines({ databaseUrl: db.url, root, generated: spread, songSeconds: spreadSongs.map((t) => t.ground_truth.duration_seconds) })));
    }
    if (PARTS.has('first-start')) {
      const dataDir = path.join(root, 'first-start');
      fs.mkdirSync(dataDir, { mode: 0o755 });
      started = performance.now();
      const server = await spawnServer({ DATA_DIR: dataDir, DATABASE_URL: '', DEMO_TRACKS: '' }, 300_000);
      const firstStartSeconds = (performance.now() - started) / 1000;
      server.child.kill('SIGTERM');
      await server.exited;
      lines.push(`first start (npm start on an empty data dir: initdb, migrations, ${DEFAULT_DEMO_TRACKS}-track demo catalog): ${firstStartSeconds.toFixed(1)} s (target < 120 s)`);
    }
    return lines.join('\n');
  } finally {
    await pool.close();
    await sql.end();
    await db.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
