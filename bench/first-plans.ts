// A fresh engine pool's first plans, cold and warmed (engine/warm-up.ts): the plans a server's
// threads make right after start, timed through the pool as POST /clip-plan calls it. The warm-up
// runs on another track than the one measured, as the server's does on its catalog's longest.
import { createEnginePool } from '../engine/pool.ts';
import { spreadHitPoint } from '../engine/hit-point-spread.ts';
import { DEFAULT_ENGINE_WARMUP_PLANS } from '../server/config.ts';
import { inRounds, median } from './rounds.ts';

const FIRST_PLANS = 500;
const CLIP_SECONDS = 30;

interface FirstPlans {
  p50Ms: number;
  p99Ms: number;
  warmMs: number;
}

/** Times a fresh pool's first FIRST_PLANS edit plans on `measured`, after warming on `warming` (or not). */
async function firstPlans(measured: Uint8Array, warming: Uint8Array | undefined): Promise<FirstPlans> {
  const pool = createEnginePool();
  try {
    // The threads started (a pool's first task waits for its thread to load), as a server's are.
    await Promise.all(Array.from({ length: pool.status().threads }, () => pool.plan({ analysis: measured, mode: 'segment', durationSeconds: CLIP_SECONDS })));
    const warmStart = performance.now();
    if (warming) await pool.warm({ analysis: warming, analysisKey: 'warming', plansPerThread: DEFAULT_ENGINE_WARMUP_PLANS });
    const warmMs = performance.now() - warmStart;
    const times: number[] = [];
    for (let i = 0; i < FIRST_PLANS; i++) {
      const hitPointSeconds = spreadHitPoint(i, CLIP_SECONDS);
      const start = performance.now();
      await pool.plan({ analysis: measured, analysisKey: 'measured', mode: 'edit', durationSeconds: CLIP_SECONDS, hitPointSeconds });
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return { p50Ms: times[FIRST_PLANS >> 1], p99Ms: times[Math.floor(FIRST_PLANS * 0.99)], warmMs };
  } finally {
    await pool.close();
  }
}

/** Report lines: cold and warmed pools alternated in each round, then the medians. */
export async function firstPlansLines(measured: Uint8Array, warming: Uint8Array): Promise<string[]> {
  const rounds = await inRounds(async () => ({ cold: await firstPlans(measured, undefined), warmed: await firstPlans(measured, warming) }));
  const lines = rounds.map(({ cold, warmed }, i) =>
    `${i + 1}: a fresh pool's first ${FIRST_PLANS} plans (edit 30 s with H, through the pool): cold p50 ${cold.p50Ms.toFixed(2)} ms, p99 ${cold.p99Ms.toFixed(2)} ms; ` +
    `warmed (${DEFAULT_ENGINE_WARMUP_PLANS} plans a thread on another track, ${(warmed.warmMs / 1000).toFixed(1)} s) p50 ${warmed.p50Ms.toFixed(2)} ms, p99 ${warmed.p99Ms.toFixed(2)} ms`);
  lines.push(`median of ${rounds.length} rounds, a fresh pool's first ${FIRST_PLANS} plans p99: cold ${median(rounds, (r) => r.cold.p99Ms).toFixed(2)} ms, warmed ${median(rounds, (r) => r.warmed.p99Ms).toFixed(2)} ms`);
  return lines;
}
