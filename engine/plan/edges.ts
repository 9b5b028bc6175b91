// Where a clip may start and end, and what each choice costs (lower is better). Music starts best
// on the track's start or a section's downbeat, well on any downbeat, and otherwise as a pickup
// into a downbeat from a quiet moment of the bar before. It ends best with the track's own ending
// (anywhere in the decay after its last attack), else on a bar line, else on a beat.
import type { Ending } from './plan.ts';
import { type PlanGrid, barAt, isSectionStart, nearestIndex, onsetRatio, rmsBetween } from './grid.ts';
import { JOIN_COST, MAX_STRETCH_COST } from './joins.ts';

/** Within this many seconds a time counts as on a bar line or a beat. */
export const ON_LINE_SECONDS = 0.02;
const PLAIN_DOWNBEAT_COST = 0.3;
const PICKUP_COST = 0.4;
/** A pickup that starts on a strong onset (mid-note) costs this much more per median onset. */
const PICKUP_ONSET_COST = 0.4;
const MAX_ONSET_RATIO = 2;
/** An ending in the track's decaying tail costs up to this much, as loud as the tail still is where it is cut. */
const TAIL_CUT_COST = 0.6;
const BAR_LINE_END_COST = 0.8;
const BEAT_END_COST = 1.4;
/** An end on a bar line or beat of low confidence costs up to this much more. */
const DOUBTFUL_END_COST = 1;
/**
 * An end on no beat is heard as a mistake: worse than any join, and worse than the most doubtful
 * beat reached by the largest stretch, so that the leftover fraction of a beat goes into a stretch
 * wherever one can take it.
 */
const CUT_END_COST = BEAT_END_COST + DOUBTFUL_END_COST + MAX_STRETCH_COST + JOIN_COST;
/** The window (seconds) whose loudness is what a cut in the tail is heard by. */
const CUT_WINDOW_SECONDS = 0.05;

/** Cost of a clip that starts at source time `s0`: the track's start, a downbeat, or a pickup. */
export function startCost(grid: PlanGrid, s0: number): number {
  if (s0 < ON_LINE_SECONDS) return 0;
  const bar = barAt(grid, s0 + ON_LINE_SECONDS);
  if (bar >= 0 && Math.abs(grid.lines[bar] - s0) < ON_LINE_SECONDS) return isSectionStart(grid, grid.lines[bar]) ? 0 : PLAIN_DOWNBEAT_COST;
  return PICKUP_COST + PICKUP_ONSET_COST * Math.min(MAX_ONSET_RATIO, onsetRatio(grid, s0));
}

export interface EndChoice {
  cost: number;
  ending: Ending;
}

/** The ending of a clip whose last part stops at source time `end`. */
export function endChoice(grid: PlanGrid, end: number): EndChoice {
  if (end >= grid.tailStart - ON_LINE_SECONDS && end <= grid.trackSeconds + ON_LINE_SECONDS) {
    const attack = rmsBetween(grid, grid.tailStart - CUT_WINDOW_SECONDS, grid.tailStart) || 1e-9;
    const atCut = end >= grid.trackSeconds - ON_LINE_SECONDS ? 0 : rmsBetween(grid, end - CUT_WINDOW_SECONDS, end);
    return { cost: TAIL_CUT_COST * Math.min(1, atCut / attack), ending: 'track_end' };
  }
  const bar = barAt(grid, end + ON_LINE_SECONDS);
  if (bar >= 0 && bar < grid.bars && Math.abs(grid.lines[bar] - end) < ON_LINE_SECONDS) {
    return { cost: BAR_LINE_END_COST + DOUBTFUL_END_COST * (1 - grid.lineConfidence[bar]), ending: 'bar_line' };
  }
  const beat = nearestIndex(grid.beats, end);
  if (beat >= 0 && Math.abs(grid.beats[beat] - end) < ON_LINE_SECONDS) {
    return { cost: BEAT_END_COST + DOUBTFUL_END_COST * (1 - grid.beatConfidence[beat]), ending: 'beat' };
  }
  return { cost: CUT_END_COST, ending: 'cut' };
}
