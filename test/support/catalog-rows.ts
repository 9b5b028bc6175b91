// Track rows written straight into the tracks table, without rendering audio: for search tests
// and benchmarks, which read metadata only. Audio fields hold placeholders (no download works).
import crypto from 'node:crypto';
import type { Sql } from '../../db/connect.ts';
import { planTrack } from '../../catalog/demo/plan.ts';
import { describe, trackSeed } from '../../catalog/demo/generate.ts';

export interface TrackMetadata {
  title: string; artist: string; genre: string; subgenres: string[]; moods: string[]; instruments: string[];
  has_vocals: boolean; energy_level: string; bpm: number; key?: string; description: string; duration_seconds?: number; peak_seconds?: number;
}

/** Rows for metadata; ids from `idSeed` and the position, so they are stable run to run. */
export async function insertTrackRows<T extends TrackMetadata>(sql: Sql, tracks: T[], idSeed: string, batch = 1000) {
  const rows = tracks.map((meta, i) => {
    const sha = crypto.createHash('sha256').update(`${idSeed}:${i}`).digest('hex');
    return {
      id: `trk_${sha.slice(0, 16)}`,
      audio_sha256: sha,
      audio_bytes: 0,
      preview_sha256: sha,
      title: meta.title,
      artist: meta.artist,
      duration_seconds: meta.duration_seconds ?? 150,
      bpm: meta.bpm,
      key: meta.key ?? null,
      genre: meta.genre,
      subgenres: meta.subgenres,
      moods: meta.moods,
      instruments: meta.instruments,
      has_vocals: meta.has_vocals,
      energy_level: meta.energy_level,
      description: meta.description,
      peak_seconds: meta.peak_seconds ?? 60,
      analysis: Buffer.alloc(0),
    };
  });
  for (let i = 0; i < rows.length; i += batch) await sql`INSERT INTO tracks ${sql(rows.slice(i, i + batch))}`;
  return rows;
}

/** The demo generator's metadata for `count` tracks of a catalog seed (from its `first`). */
export async function insertPlannedTracks(sql: Sql, count: number, seed: number, batch = 1000, first = 0) {
  const tracks = Array.from({ length: count }, (_, k) => {
    const i = first + k;
    const plan = planTrack(trackSeed(seed, i));
    return { ...describe(i, plan), duration_seconds: plan.durationSeconds, peak_seconds: plan.climaxSeconds };
  });
  return insertTrackRows(sql, tracks, first === 0 ? String(seed) : `${seed}+${first}`, batch);
}
