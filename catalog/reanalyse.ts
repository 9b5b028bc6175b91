// Analyses stored by an older engine (ANALYSIS_VERSION) are redone from the stored audio when a
// track is next used: the new fields (bar features for edits) and any improved estimate (tempo,
// peak) then reach the catalog row too, for every track that shares the audio.
import type { Sql } from '../db/connect.ts';
import type { EnginePool } from '../engine/pool.ts';
import type { CatalogStorage } from './storage/catalog-storage.ts';

export async function reanalyseStoredAudio(deps: { sql: Sql; engine: EnginePool; storage: CatalogStorage }, audioSha256: string): Promise<Uint8Array> {
  const { analysis, bytes } = await deps.engine.analyse({ path: await deps.storage.localPath(audioSha256, 'audio') });
  await deps.sql`
    UPDATE tracks SET analysis = ${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)}, peak_seconds = ${analysis.peakSeconds}
     WHERE audio_sha256 = ${audioSha256}`;
  return bytes;
}
