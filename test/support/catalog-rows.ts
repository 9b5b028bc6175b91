// Track rows made from the demo generator's metadata, without rendering audio: for search tests
// and benchmarks, which read metadata only. Audio fields hold placeholders (no download works).
import crypto from 'node:crypto';
import type { Sql } from '../../db/connect.ts';
import { planTrack } from '../../catalog/demo/plan.ts';
import { describe, trackSeed } from '../../catalog/demo/generate.ts';

export async function insertPlannedTracks(sql: Sql, count: number, seed: number, batch = 1000) {
  const rows = [];
  for (let i = 0; i < count; i++) {
    const plan = planTrack(trackSeed(seed, i));
    const meta = describe(i, plan);
    const sha = crypto.createHash('sha256').update(`${seed}:${i}`).digest('hex');
    rows.push({
      id: `trk_${sha.slice(0, 16)}`,
      audio_sha256: sha,
      audio_bytes: 0,
      preview_sha256: sha,
      title: meta.title,
      artist: meta.artist,
      duration_seconds: plan.durationSeconds,
      bpm: meta.bpm,
      key: meta.key,
      genre: meta.genre,
      subgenres: meta.subgenres,
      moods: meta.moods,
      instruments: meta.instruments,
      has_vocals: meta.has_vocals,
      energy_level: meta.energy_level,
      description: meta.description,
      peak_seconds: plan.climaxSeconds,
      analysis: Buffer.alloc(0),
    });
  }
  for (let i = 0; i < rows.length; i += batch) await sql`INSERT INTO tracks ${sql(rows.slice(i, i + batch))}`;
  return rows;
}
