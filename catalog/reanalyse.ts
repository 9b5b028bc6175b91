// Analyses stored by an older engine (ANALYSIS_VERSION) are redone from the stored clip master when
// a track is next used: the new fields (bar features for edits) and any improved estimate (tempo,
// peak) then reach the catalog row too, for every track that shares the audio.
import type { Sql } from '../db/connect.ts';
import type { EnginePool } from '../engine/pool.ts';
import type { CatalogStorage } from './storage/catalog-storage.ts';
import { clipMasterPath, type TrackFiles } from './track-files.ts';

export async function reanalyseStoredAudio(deps: { sql: Sql; engine: EnginePool; storage: CatalogStorage }, audioSha256: string): Promise<Uint8Array> {
  // The analysis reads the clip master, as at ingest (the original itself where it is one).
  const [files] = await deps.sql<Pick<TrackFiles, 'audio_sha256' | 'audio_format' | 'clip_master_sha256'>[]>`
    SELECT audio_sha256, audio_format, clip_master_sha256 FROM tracks WHERE audio_sha256 = ${audioSha256}`;
  if (!files) throw new Error(`no track has the audio ${audioSha256}`);
  const { analysis, bytes } = await deps.engine.analyse({ path: await clipMasterPath(deps.storage, files) });
  await deps.sql`
    UPDATE tracks SET analysis = ${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)}, peak_seconds = ${analysis.peakSeconds}
     WHERE audio_sha256 = ${audioSha256}`;
  return bytes;
}
