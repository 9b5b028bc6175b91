// Loop mode: exactly D seconds whose end flows into its start. The clip plays the track from a
// start to the bar line it wraps at, chosen where the bar before the wrap and the bar after it
// sound alike, as an edit's joins are. The wrap is on the beat when the start is on one: a
// downbeat D seconds before a bar line. Where D is no whole number of the track's beats, no such
// start exists and the start is a pickup into a downbeat (the wrap then falls off the beat by
// the leftover fraction), the cheapest by the same cost.
import { type ClipPlan, type ClipRequest, planOf } from './plan.ts';
import { type PlanGrid, barAt, nearestIndex, seamCost } from './grid.ts';
import { ON_LINE_SECONDS, startCost } from './edges.ts';
import { contentWorth } from './content.ts';

/** A wrap whose start is on no beat: the loop stumbles by the leftover fraction once per pass. */
const OFF_BEAT_WRAP_COST = 2;

function offBeat(grid: PlanGrid, t: number): boolean {
  const i = nearestIndex(grid.beats, t);
  return i < 0 || Math.abs(grid.beats[i] - t) > ON_LINE_SECONDS;
}

function bestWrap(grid: PlanGrid, duration: number) {
  let best: { cost: number; start: number } | undefined;
  for (let x = 1; x < grid.bars; x++) {
    const start = grid.lines[x] - duration;
    if (start < 0) continue;
    const into = barAt(grid, start - ON_LINE_SECONDS) + 1; // the downbeat the start leads into (or is)
    const seam = seamCost(grid, x, Math.max(1, into));
    if (seam === undefined) continue;
    const cost = seam + startCost(grid, start) + (offBeat(grid, start) ? OFF_BEAT_WRAP_COST : 0) - contentWorth(grid, [{ sourceStart: start, length: duration }]);
    if (!best || cost < best.cost) best = { cost, start };
  }
  return best;
}

export function loopPlan(grid: PlanGrid, request: ClipRequest): ClipPlan {
  const duration = request.durationSeconds;
  const wrap = bestWrap(grid, duration);
  return planOf(request, [{ sourceStart: wrap?.start ?? 0, length: duration }], grid, 'bar_line');
}
