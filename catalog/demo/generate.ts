// The demo catalog generator: renders N tracks from a seed (in worker threads) into a folder of
// MP3s plus metadata.json, the ingest sidecar, with each track's ground truth for tests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import { planTrack, type TrackPlan } from './plan.ts';

export const DEFAULT_SEED = 20261121;

export interface GeneratedTrack {
  file: string;
  title: string;
  artist: string;
  genre: string;
  subgenres: string[];
  moods: string[];
  instruments: string[];
  has_vocals: boolean;
  energy_level: string;
  bpm: number;
  key: string;
  description: string;
  ground_truth: { seed: number; bpm: number; key: string; climax_seconds: number; duration_seconds: number; has_vocals: boolean; energy_level: string };
}

/** Seed of the i-th track of a catalog. Consecutive i cycle through the styles. */
export function trackSeed(catalogSeed: number, i: number): number {
  return catalogSeed * 100 + i;
}

function fileName(i: number, plan: TrackPlan): string {
  const slug = `${plan.title}`.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return `${String(i + 1).padStart(3, '0')}-${slug}.mp3`;
}

export function describe(i: number, plan: TrackPlan): GeneratedTrack {
  return {
    file: fileName(i, plan),
    title: plan.title,
    artist: plan.artist,
    genre: plan.style.genre,
    subgenres: plan.subgenres,
    moods: plan.moods,
    instruments: plan.instruments,
    has_vocals: plan.hasVocals,
    energy_level: plan.energy,
    bpm: plan.bpm,
    key: plan.key,
    description: plan.description,
    ground_truth: {
      seed: plan.seed,
      bpm: plan.bpm,
      key: plan.key,
      climax_seconds: Math.round(plan.climaxSeconds * 1000) / 1000,
      duration_seconds: Math.round(plan.durationSeconds * 1000) / 1000,
      has_vocals: plan.hasVocals,
      energy_level: plan.energy,
    },
  };
}

export async function generateDemoCatalog(options: {
  dir: string;
  tracks: number;
  seed?: number;
  threads?: number;
  onProgress?: (done: number, total: number) => void;
}): Promise<GeneratedTrack[]> {
  const seed = options.seed ?? DEFAULT_SEED;
  fs.mkdirSync(options.dir, { recursive: true });
  const threads = options.threads ?? os.availableParallelism();
  const pool = new Piscina({
    filename: new URL('./render-worker.mjs', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 1000,
    concurrentTasksPerWorker: 1,
  });
  const tracks = Array.from({ length: options.tracks }, (_, i) => describe(i, planTrack(trackSeed(seed, i))));
  let done = 0;
  try {
    await Promise.all(
      tracks.map(async (track) => {
        const target = path.join(options.dir, track.file);
        if (!fs.existsSync(target)) {
          const mp3 = await pool.run({ seed: track.ground_truth.seed }, { name: 'renderDemoTrack' });
          fs.writeFileSync(`${target}.tmp`, mp3);
          fs.renameSync(`${target}.tmp`, target);
        }
        options.onProgress?.(++done, tracks.length);
      }),
    );
  } finally {
    await pool.destroy();
  }
  fs.writeFileSync(path.join(options.dir, 'metadata.json'), JSON.stringify({ seed, tracks }, null, 2) + '\n');
  return tracks;
}
