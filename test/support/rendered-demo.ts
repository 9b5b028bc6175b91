// The first tracks of the demo catalog rendered and ingested through the real pipeline, for tests
// that need real audio behind the metadata, with sidecar fields left out so the analysis supplies
// them. Rendering and encoding take ~5 s a track, so tests render a few and add the rest of the
// catalog as metadata rows (catalog-rows.ts).
//
// A track's MP3 depends on its seed alone (the generator's test checks it renders the same bytes
// every time), so within one `npm test` run each demo track is rendered once: test/run.ts names a
// directory in DEMO_RENDER_CACHE_ENV, and the files, run in separate processes, share what they
// rendered there (written under a temporary name, then renamed). Without it every call renders.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Sql } from '../../db/connect.ts';
import type { EnginePool } from '../../engine/pool.ts';
import { generateDemoCatalog, describe, trackSeed, DEFAULT_SEED } from '../../catalog/demo/generate.ts';
import { planTrack } from '../../catalog/demo/plan.ts';
import { renderTrack } from '../../catalog/demo/render.ts';
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';
import { ingestFolder } from '../../catalog/ingest.ts';
import type { CatalogStorage } from '../../catalog/storage/catalog-storage.ts';

export const DEMO_RENDER_CACHE_ENV = 'MLA_TEST_DEMO_RENDERS';

/** Where the run keeps the MP3 of the demo track with this (track) seed, or undefined when it keeps none. */
function cachedPath(seed: number): string | undefined {
  const dir = process.env[DEMO_RENDER_CACHE_ENV];
  return dir ? path.join(dir, `demo-${seed}.mp3`) : undefined;
}

function keep(seed: number, from: string): void {
  const target = cachedPath(seed);
  if (!target || fs.existsSync(target)) return;
  const temporary = `${target}.${process.pid}.tmp`;
  fs.copyFileSync(from, temporary);
  fs.renameSync(temporary, target);
}

/** The MP3 of the demo catalog's i-th track, the bytes generateDemoCatalog writes for it. */
export async function demoTrackMp3(i: number, catalogSeed = DEFAULT_SEED): Promise<Uint8Array> {
  const seed = trackSeed(catalogSeed, i);
  const cached = cachedPath(seed);
  if (cached && fs.existsSync(cached)) return new Uint8Array(fs.readFileSync(cached));
  // As the generator's threads do it (catalog/demo/render-task.ts).
  const mix = renderTrack(planTrack(seed));
  const mp3 = await encodeGaplessMp3(mix.left, mix.right);
  if (cached) {
    const temporary = `${cached}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, mp3);
    fs.renameSync(temporary, cached);
  }
  return mp3;
}

export async function ingestRenderedDemo(options: { sql: Sql; pool: EnginePool; storage: CatalogStorage; tracks: number; fromAnalysis: string[] }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-demo-'));
  try {
    // The generator renders the tracks whose files are not in the folder yet.
    const planned = Array.from({ length: options.tracks }, (_, i) => ({ seed: trackSeed(DEFAULT_SEED, i), file: describe(i, planTrack(trackSeed(DEFAULT_SEED, i))).file }));
    for (const { seed, file } of planned) {
      const cached = cachedPath(seed);
      if (cached && fs.existsSync(cached)) fs.copyFileSync(cached, path.join(dir, file));
    }
    await generateDemoCatalog({ dir, tracks: options.tracks, seed: DEFAULT_SEED });
    for (const { seed, file } of planned) keep(seed, path.join(dir, file));
    const sidecar = path.join(dir, 'metadata.json');
    const metadata = JSON.parse(fs.readFileSync(sidecar, 'utf8'));
    for (const track of metadata.tracks) for (const field of options.fromAnalysis) delete track[field];
    fs.writeFileSync(sidecar, JSON.stringify(metadata));
    const report = await ingestFolder({ sql: options.sql, pool: options.pool, dir, storage: options.storage });
    assert.deepEqual(report.rejected, []);
    assert.equal(report.ingested.length, options.tracks);
    return report;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
