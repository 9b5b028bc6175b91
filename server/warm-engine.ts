// The engine's threads warmed on the catalog before the banner says the service is ready
// (engine/warm-up.ts says why): the first minutes of new plans then run at the speed of the rest.
// The warming track is the catalog's longest, so every warming length fits it.
import type { Sql } from '../db/connect.ts';
import type { EnginePool } from '../engine/pool.ts';
import type { Logger } from './observability/logger.ts';
import { isCurrentAnalysis } from '../engine/analysis/serialise.ts';
import { inSharedMemory } from './tracks.ts';

/**
 * Warms every engine thread with about `plansPerThread` plans; logs what each thread did and how
 * long it took. `stopping` tells a warm-up ended by the service's shutdown (its pool closed) from a failure.
 */
export async function warmEngine(sql: Sql, engine: EnginePool, logger: Logger, plansPerThread: number, stopping = () => false): Promise<void> {
  if (plansPerThread === 0) return;
  const [track] = await sql<{ id: string; audio_sha256: string; analysis: Buffer }[]>`
    SELECT id, audio_sha256, analysis FROM tracks WHERE removed_at IS NULL ORDER BY duration_seconds DESC, id LIMIT 1`;
  // An analysis of an older engine is redone at its first request; warming waits for none.
  if (!track || !isCurrentAnalysis(track.analysis)) {
    logger.info({ reason: track ? 'the longest track has an analysis of an older engine' : 'the catalog is empty' }, 'engine not warmed');
    return;
  }
  const started = performance.now();
  try {
    // In shared memory, as the routes pass it: every batch carries it, and reaches the threads uncopied.
    const planned = await engine.warm({ analysis: inSharedMemory(track.analysis), analysisKey: track.audio_sha256, plansPerThread });
    logger.info({ track_id: track.id, plans_by_thread: Object.fromEntries(planned), ms: Math.round(performance.now() - started) }, 'engine warmed');
  } catch (err) {
    // Warming is an optimisation: a failure is logged and the service runs on unwarmed.
    if (stopping()) logger.info('engine warm-up ended by the shutdown');
    else logger.warn({ err }, 'engine warm-up failed');
  }
}
