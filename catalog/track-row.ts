// One new master made into its catalog row: kept as delivered, its clip master (and, for WAV and
// FLAC, its full-download MP3) made in the engine's pool, analysed from the clip master, given a
// 30 s preview, all stored content-addressed. A master refused on the way leaves nothing in the
// store that it added (no row will point at it).
import fs from 'node:fs';
import type { EnginePool } from '../engine/pool.ts';
import type { MasterFormat } from '../engine/masters/master-shape.ts';
import type { TrackMetadata } from './metadata.ts';
import { putFile, sha256Hex, storePath, trackIdOf, type StoreKind } from './store.ts';
import { clipMasterPath } from './track-files.ts';

export const MIN_TRACK_SECONDS = 10;
export const MAX_TRACK_SECONDS = 20 * 60;
export const PREVIEW_SECONDS = 30;

export interface NewMaster {
  /** The file's name in the ingest folder. */
  file: string;
  format: MasterFormat;
  bytes: Uint8Array;
  sha256: string;
  metadata: TrackMetadata;
}

/** The analysis of a clip master, and the track's preview made from it. */
async function analyseWithPreview(pool: EnginePool, clipMaster: string, durationSeconds: number) {
  const { analysis, bytes } = await pool.analyse({ path: clipMaster });
  const preview = await pool.clip({ path: clipMaster, analysis: bytes, durationSeconds: Math.min(PREVIEW_SECONDS, Math.floor(durationSeconds * 1000) / 1000) });
  return { analysis, bytes, preview: preview.mp3 };
}

export async function trackRow(deps: { pool: EnginePool; storeDir: string }, master: NewMaster): Promise<Record<string, unknown>> {
  const { pool, storeDir } = deps;
  const { file, format, bytes, sha256, metadata } = master;
  // Files this call adds to the store: removed again if the master is refused.
  const added: string[] = [];
  const put = (content: Uint8Array, kind: StoreKind, extension?: string) => {
    const stored = storePath(storeDir, sha256Hex(content), kind, extension);
    if (!fs.existsSync(stored)) added.push(stored);
    return putFile(storeDir, content, kind, extension);
  };
  try {
    put(bytes, 'audio', format);
    const masters = await pool.masters({ path: storePath(storeDir, sha256, 'audio', format), format, minSeconds: MIN_TRACK_SECONDS, maxSeconds: MAX_TRACK_SECONDS });
    const files = {
      audio_sha256: sha256,
      audio_bytes: bytes.length,
      audio_format: format,
      clip_master_sha256: masters.clipMaster ? put(masters.clipMaster, 'master') : null,
      download_sha256: masters.download ? put(masters.download, 'download') : null,
      download_bytes: masters.download?.length ?? null,
    };
    const duration = masters.durationSeconds;
    const { analysis, bytes: analysisBytes, preview } = await analyseWithPreview(pool, clipMasterPath(storeDir, files), duration).catch((err: Error) => {
      throw new Error(`analysis failed: ${err.message}`);
    });
    return {
      id: trackIdOf(sha256),
      ...files,
      preview_sha256: put(preview, 'preview'),
      title: metadata.title,
      artist: metadata.artist,
      duration_seconds: duration,
      bpm: metadata.bpm ?? Math.round(analysis.tempoBpm * 10) / 10,
      key: metadata.key ?? analysis.key,
      genre: metadata.genre ?? null,
      subgenres: metadata.subgenres ?? [],
      moods: metadata.moods ?? [],
      instruments: metadata.instruments ?? [],
      has_vocals: metadata.has_vocals ?? null,
      energy_level: metadata.energy_level ?? analysis.energyLevel,
      description: metadata.description ?? '',
      peak_seconds: analysis.peakSeconds,
      timbre: analysis.timbre ?? null,
      analysis: Buffer.from(analysisBytes.buffer, analysisBytes.byteOffset, analysisBytes.byteLength),
      source_file: file,
    };
  } catch (err) {
    for (const stored of added) fs.rmSync(stored, { force: true });
    throw err;
  }
}
