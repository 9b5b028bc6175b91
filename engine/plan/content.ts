// What an edit without a hit point should contain: the track's representative energy and, when
// it fits, its climax (as segment mode does).
import type { Run } from './plan.ts';
import { type PlanGrid, rmsBetween } from './grid.ts';

/** Energy above the track's mean counts up to this ratio. */
const MAX_ENERGY_RATIO = 1.3;
/** Worth of containing the climax, against a start, join or end cost. */
const CLIMAX_WORTH = 0.8;
/** The climax counts as contained when it has this many seconds of the clip before and after it. */
const CLIMAX_MARGIN_SECONDS = 2;

/** How much of what the track is about the runs play: its energy, and its climax with room around it. */
export function contentWorth(grid: PlanGrid, runs: Run[]): number {
  const trackRms = rmsBetween(grid, 0, grid.trackSeconds) || 1e-9;
  let weighted = 0, total = 0, clipTime = 0;
  let climaxAt: number | undefined;
  const peak = grid.peakSeconds;
  for (const run of runs) {
    weighted += rmsBetween(grid, run.sourceStart, run.sourceStart + run.length) * run.length;
    total += run.length;
    const at = clipTime + peak - run.sourceStart;
    if (climaxAt === undefined && peak >= run.sourceStart && peak < run.sourceStart + run.length) climaxAt = at;
    clipTime += run.length;
  }
  const energy = Math.min(MAX_ENERGY_RATIO, weighted / Math.max(total, 1e-9) / trackRms);
  const climax = climaxAt !== undefined && climaxAt >= CLIMAX_MARGIN_SECONDS && climaxAt <= total - CLIMAX_MARGIN_SECONDS;
  return energy + (climax ? CLIMAX_WORTH : 0);
}
