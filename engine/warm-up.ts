// Warming a worker thread's plan code before traffic. V8 optimises a function only after it has
// run many times, and a plan's rarer search paths (the later landing searches, the window
// anchors) run in a few plans of a hundred, so a fresh thread's first ~1,000 plans are slow at the
// tail: in process, the first 600 demo plans have a p99 of 6.8 ms against 1.7-2.6 ms for the next
// passes (`npm run bench -- engine` prints a fresh pool's first plans, cold and warmed), and over HTTP the first 5 s of new plans a p99 of 7-13 ms against
// 4-6 ms later. Warming plans the requests real traffic sends on one catalog track, in batches, so
// a request that comes meanwhile waits for one batch at most.
import type { Analysis } from './analysis/analyse.ts';
import type { ClipRequest } from './plan/plan.ts';
import { planClip } from './plan/plan-clip.ts';
import type { PlanGrid } from './plan/grid.ts';
import { isEngineError } from './errors.ts';
import { spreadHitPoint } from './hit-point-spread.ts';

/** Clip lengths (seconds) the warming plans cycle through: the common 30 s most, a short and a long one. */
const WARM_DURATIONS_SECONDS = [30, 30, 30, 15, 60];
/** One plan in this many is a segment, and one a loop (the other modes' code is warmed too). */
const OTHER_MODE_EVERY = 10;

/** The i-th warming request on a track this long: an edit with a hit point spread over [1, D - 1], now and then another mode. */
export function warmingRequest(i: number, trackSeconds: number): ClipRequest {
  const durationSeconds = Math.min(WARM_DURATIONS_SECONDS[i % WARM_DURATIONS_SECONDS.length], Math.floor(trackSeconds));
  const hitPointSeconds = spreadHitPoint(i, durationSeconds);
  if (i % OTHER_MODE_EVERY === OTHER_MODE_EVERY - 1) return { mode: 'loop', durationSeconds };
  if (i % OTHER_MODE_EVERY === OTHER_MODE_EVERY - 2) return { mode: 'segment', durationSeconds, hitPointSeconds };
  return { mode: 'edit', durationSeconds, hitPointSeconds };
}

/** Plans warming requests first .. first + count - 1; returns how many made a plan (an impossible request is a typed error, and warms too). */
export function warmPlans(analysis: Analysis, grid: PlanGrid, first: number, count: number): number {
  let planned = 0;
  for (let i = first; i < first + count; i++) {
    try {
      planClip(analysis, warmingRequest(i, analysis.durationSeconds), grid);
      planned++;
    } catch (err) {
      if (!isEngineError(err)) throw err;
    }
  }
  return planned;
}
