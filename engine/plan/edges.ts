// Where a clip may start and end, and what each choice costs (lower is better). Music can start
// on the track's start, a section's downbeat, any downbeat, or a pickup into a downbeat from a
// quiet moment of the bar before; it ends best with the track's own ending.
import type { Ending } from './plan.ts';
import { type BarGrid, barAt, isSectionStart, lineOnsetShare, onsetRatio } from './bar-grid.ts';
import { unsteadyShare } from './beat-steadiness.ts';
import { offTheGrid } from './grid-ending.ts';

/** Within this many seconds a time counts as on a bar line (the 20 ms tolerance). */
export const ON_LINE_SECONDS = 0.02;
/** Start costs: a section downbeat or the track's start is ideal; a plain downbeat is good. */
const PLAIN_DOWNBEAT_COST = 0.3;
const PICKUP_COST = 0.4;
/** A pickup that starts on a strong onset (mid-note) costs this much more per median onset. */
const PICKUP_ONSET_COST = 0.4;
const MAX_ONSET_RATIO = 2;
/** End costs: a bar line instead of the track's ending, and a cut that lands on neither (worse than any join: it ends mid-beat). */
const BAR_LINE_END_COST = 0.8;
/**
 * A bar-line ending costs this much more when every beat period around the line strays from the
 * track's (beat-steadiness.ts), in proportion to the share that do: the plan then ends at another
 * bar line. Module edits (`npm run bench -- edits`): on a true beat 79 -> 80 of 84, and 219 -> 220
 * of 224 on a larger draw, landing unchanged.
 */
const UNSTEADY_END_COST = 1;
/**
 * A bar-line ending costs up to this much more when little is heard on the line: its onset under
 * WEAK_LINE_SHARE of the track's median bar line's, the cost rising as it falls to none. Where the
 * beat tracker has the music's tempo or phase wrong, its bar lines fall between the notes: of the
 * tracker modules' bar lines (true beats from their scores, .scratch/lineonset.mts), those with an
 * onset under 0.35 of the median were on a true beat 41 times in 93, those above 88-98%. The
 * cost starts at half the median, so that a line at 0.35 already pays a third of it.
 */
const WEAK_LINE_END_COST = 1;
const WEAK_LINE_SHARE = 0.5;
/**
 * A bar-line ending costs this much more when the line is off the one beat grid where the
 * tracker's beats slid half a beat from it (grid-ending.ts): there one of the two is wrong, and on
 * music whose true beats are known it is mostly the tracker. Bar lines after the peak on the
 * tracker modules and the Frets on Fire songs (.scratch/lineagree.mts, 2026-12-03): the tracker's
 * lines where the two disagree on a true beat 29 of 136 times, the grid's there 109 of 135, either
 * where they agree 97%, the tracker's on pieces without such a slide 90%.
 */
const OFF_GRID_END_COST = 1;
const CUT_END_COST = 3;
/** The ending may lose at most this share of the decay after its last bar, cost rising to 1. */
const DECAY_TRIM_COST = 1;

export function startCost(grid: BarGrid, s0: number): number {
  if (s0 < ON_LINE_SECONDS) return 0; // the track's start
  const bar = barAt(grid, s0 + ON_LINE_SECONDS);
  if (bar >= 0 && Math.abs(grid.lines[bar] - s0) < ON_LINE_SECONDS) return isSectionStart(grid, grid.lines[bar]) ? 0 : PLAIN_DOWNBEAT_COST;
  return PICKUP_COST + PICKUP_ONSET_COST * Math.min(MAX_ONSET_RATIO, onsetRatio(grid, s0));
}

export interface EndChoice {
  cost: number;
  ending: Ending;
}

/** The ending of a clip whose last part stops at source time `end`. */
export function endChoice(grid: BarGrid, end: number): EndChoice {
  const lastLine = grid.lines[grid.bars];
  if (end >= lastLine - ON_LINE_SECONDS) {
    // The last bar plays whole, then its decay, trimmed at most to the bar line.
    const decay = grid.trackSeconds - lastLine;
    const trimmed = decay > 0 ? Math.max(0, grid.trackSeconds - end) / decay : 0;
    return { cost: DECAY_TRIM_COST * Math.min(1, trimmed), ending: 'track_end' };
  }
  const bar = barAt(grid, end + ON_LINE_SECONDS);
  if (bar >= 0 && Math.abs(grid.lines[bar] - end) < ON_LINE_SECONDS) {
    const { beatTimesSeconds, frameRate } = grid.analysis;
    const weak = Math.max(0, 1 - lineOnsetShare(grid, grid.lines[bar]) / WEAK_LINE_SHARE);
    const offGrid = offTheGrid(grid.analysis, grid.lines[bar]) ? OFF_GRID_END_COST : 0;
    return { cost: BAR_LINE_END_COST + UNSTEADY_END_COST * unsteadyShare(beatTimesSeconds, grid.beatSeconds, frameRate, grid.lines[bar]) + WEAK_LINE_END_COST * weak + offGrid, ending: 'bar_line' };
  }
  return { cost: CUT_END_COST + 0.3 * Math.min(MAX_ONSET_RATIO, onsetRatio(grid, end)), ending: 'cut' };
}
