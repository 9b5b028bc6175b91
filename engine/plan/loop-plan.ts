// Loop mode: exactly D seconds whose end flows into its start. The clip ends on a bar line and
// wraps to its own start (a downbeat, or a pickup from a quiet moment into one), chosen where
// the bar before the wrap and the bar after it sound alike, as an edit's joins are.
import type { Analysis } from '../analysis/analyse.ts';
import { type ClipPlan, type ClipRequest, planOf } from './plan.ts';
import { barAt, barGrid, seamCost, type BarGrid } from './bar-grid.ts';
import { ON_LINE_SECONDS, startCost } from './edges.ts';
import { contentWorth } from './content.ts';

function bestWrap(grid: BarGrid, duration: number, relaxed: boolean) {
  let best: { cost: number; start: number } | undefined;
  for (let x = 1; x < grid.bars; x++) {
    const start = grid.lines[x] - duration;
    if (start < 0) continue;
    const into = barAt(grid, start - ON_LINE_SECONDS) + 1; // the downbeat the start leads into (or is)
    const seam = seamCost(grid, x, Math.max(1, into), relaxed);
    if (seam === undefined) continue;
    const cost = seam + startCost(grid, start) - contentWorth(grid, [{ sourceStart: start, length: duration }]);
    if (!best || cost < best.cost) best = { cost, start };
  }
  return best;
}

export function loopPlan(analysis: Analysis, request: ClipRequest): ClipPlan {
  const grid = barGrid(analysis);
  const duration = request.durationSeconds;
  const wrap = bestWrap(grid, duration, false) ?? bestWrap(grid, duration, true);
  const start = wrap?.start ?? 0;
  return planOf(request, [{ sourceStart: start, length: duration }], analysis.peakSeconds, 'bar_line');
}
