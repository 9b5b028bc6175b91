// Loop mode: exactly D seconds whose end flows into its start. The clip plays the track from a
// downbeat to a beat it wraps at, joined back to its start as an edit's joins are, so the loop
// keeps the beat across its wrap. D is rarely a whole number of the track's beats: the loop is
// then played at the speed that makes it one (at most MAX_STRETCH either way). Where no span of
// whole beats is that close to D (a short loop of slow beats), the loop is played at the source's
// speed and starts with a pickup into a downbeat, its wrap off the beat by the leftover fraction:
// all candidates weighed by one cost.
import { type ClipPlan, type ClipRequest, MAX_STRETCH, planOf } from './plan.ts';
import { type PlanGrid, barAt, nearestIndex } from './grid.ts';
import { ON_LINE_SECONDS, startCost } from './edges.ts';
import { contentWorth } from './content.ts';
import { DOUBTFUL_JOIN_COST, JOIN_COST, MAX_STRETCH_COST, beatJoinCost, cheaper, stretchCost } from './joins.ts';
import { firstAtOrAfter } from '../analysis/beats.ts';

/**
 * A wrap off the beat stumbles by the leftover fraction once per pass: worse than the largest
 * stretch with the most doubtful join, so that a loop is played at another speed wherever that
 * puts its wrap on the beat.
 */
const OFF_BEAT_WRAP_COST = MAX_STRETCH_COST + DOUBTFUL_JOIN_COST + JOIN_COST;

interface Wrap {
  start: number;
  stretch: number;
  cost: number;
}

/** Loops from downbeat `s` to a beat whose span, played at most MAX_STRETCH faster or slower, is D. */
function onBeatWraps(grid: PlanGrid, duration: number, s: number, best: Wrap | undefined): Wrap | undefined {
  const start = grid.lines[s];
  const first = nearestIndex(grid.beats, start);
  if (first < 0 || Math.abs(grid.beats[first] - start) >= 1e-3) return best;
  for (let x = firstAtOrAfter(grid.beats, start + duration / (1 + MAX_STRETCH)); x < grid.beats.length && grid.beats[x] - start <= duration / (1 - MAX_STRETCH); x++) {
    const span = grid.beats[x] - start;
    const stretch = duration / span;
    // The wrap leaves at beat x and goes on at the loop's first beat, as a join does.
    const join = beatJoinCost(grid, x, first);
    if (join === undefined) continue;
    const cost = join + stretchCost(stretch) + startCost(grid, start) - contentWorth(grid, [{ sourceStart: start, length: span }]);
    best = cheaper(best, { start, stretch, cost });
  }
  return best;
}

/** The loop at the source's speed ending on bar line x, its start a pickup of D's leftover fraction into a downbeat. */
function pickupWrap(grid: PlanGrid, duration: number, x: number, best: Wrap | undefined): Wrap | undefined {
  const start = grid.lines[x] - duration;
  if (start < 0) return best;
  const into = barAt(grid, start - ON_LINE_SECONDS) + 1;
  const intoBeat = nearestIndex(grid.beats, grid.lines[Math.min(into, grid.bars - 1)]);
  const outBeat = nearestIndex(grid.beats, grid.lines[x]);
  const join = beatJoinCost(grid, outBeat, intoBeat);
  if (join === undefined) return best;
  const cost = join + OFF_BEAT_WRAP_COST + startCost(grid, start) - contentWorth(grid, [{ sourceStart: start, length: duration }]);
  return cheaper(best, { start, stretch: 1, cost });
}

export function loopPlan(grid: PlanGrid, request: ClipRequest): ClipPlan {
  const duration = request.durationSeconds;
  let best: Wrap | undefined;
  for (let s = 0; s < grid.bars; s++) best = onBeatWraps(grid, duration, s, best);
  for (let x = 1; x < grid.bars; x++) best = pickupWrap(grid, duration, x, best);
  const wrap = best ?? { start: 0, stretch: 1 };
  return planOf(request, [{ sourceStart: wrap.start, length: duration / wrap.stretch }], grid, 'bar_line', undefined, undefined, wrap.stretch);
}
