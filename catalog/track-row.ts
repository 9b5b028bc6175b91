// One new master made into its catalog row: kept as delivered, its clip master (and, for WAV and
// FLAC, its full-download MP3) made in the engine's pool, analysed from the clip master, given a
// 30 s preview, all stored content-addressed. A master refused on the way leaves nothing in the
// storage that it added (no row will point at it).
import type { EnginePool } from '../engine/pool.ts';
import type { MasterFormat } from '../engine/masters/master-shape.ts';
import type { TrackMetadata } from './metadata.ts';
import { sha256Hex, trackIdOf } from './store.ts';
import type { CatalogStorage, StoredKind } from './storage/catalog-storage.ts';
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

export async function trackRow(deps: { pool: EnginePool; storage: CatalogStorage }, master: NewMaster): Promise<Record<string, unknown>> {
  const { pool, storage } = deps;
  const { file, format, bytes, sha256, metadata } = master;
  // Objects this call adds to the storage: removed again if the master is refused.
  const added: [string, StoredKind, string | undefined][] = [];
  const put = async (content: Uint8Array, kind: StoredKind, extension?: string) => {
    const contentSha256 = sha256Hex(content);
    if (!(await storage.has(contentSha256, kind, extension))) added.push([contentSha256, kind, extension]);
    return storage.put(content, kind, extension);
  };
  try {
    await put(bytes, 'audio', format);
    const original = await storage.localPath(sha256, 'audio', format);
    const masters = await pool.masters({ path: original, format, minSeconds: MIN_TRACK_SECONDS, maxSeconds: MAX_TRACK_SECONDS });
    const files = {
      audio_sha256: sha256,
      audio_bytes: bytes.length,
      audio_format: format,
      clip_master_sha256: masters.clipMaster ? await put(masters.clipMaster, 'master') : null,
      download_sha256: masters.download ? await put(masters.download, 'download') : null,
      download_bytes: masters.download?.length ?? null,
    };
    const duration = masters.durationSeconds;
    const { analysis, bytes: analysisBytes, preview } = await analyseWithPreview(pool, await clipMasterPath(storage, files), duration).catch((err: Error) => {
      throw new Error(`analysis failed: ${err.message}`);
    });
    // Silence (or only what no one hears: a DC offset, below the gate) has no tempo, key or peak to give.
    if (analysis.loudnessLufs === null) throw new Error('silent: no audible signal (loudness below the -70 LUFS gate)');
    return {
      id: trackIdOf(sha256),
      ...files,
      preview_sha256: await put(preview, 'preview'),
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
    for (const [addedSha256, kind, extension] of added) await storage.remove(addedSha256, kind, extension);
    throw err;
  }
}
