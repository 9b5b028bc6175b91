// Edits that end on the beat where the tracker's bars do not. In a passage whose off-beats are
// louder than its beats, the tracker's beats slide half a beat into them (analysis/beat-phase.ts),
// and so do the bars on them: an edit that ends on such a bar line ends half a beat off the music's
// beat. The analysis also keeps the beats on one grid through the piece, with bars on those; but a
// clip of 60 s or less is tracked as is, so it hears such a passage slid, and plans joined on the
// grid's bars land less often (every bar on the grid, tried 2026-12-01: 367 -> 363 of 380 edits of
// the third held-out set land; on the tracker's bars only where the ending is off the grid: see
// the README). So an edit is planned on the tracker's bars, and only one that ends on a bar line
// off the grid is planned again on the grid's bars, and taken when that plan ends on the grid and
// lands at least as surely.
import type { Analysis } from '../analysis/analyse.ts';
import { nearestTime } from '../analysis/beats.ts';
import type { Ending, Run } from './plan.ts';

/** An end within this of a beat of the grid is on it (the tolerance the ending benchmarks use, 30 ms). */
const ON_GRID_SECONDS = 0.03;

const gridVariants = new WeakMap<Analysis, Analysis>();

/**
 * The analysis with its bars, their features and its sections on the beats of one grid
 * (memoised: the bar grid of each is made once); undefined when the tracker's are on one grid.
 * Its beats stay the tracker's: they predict what a clip hears.
 */
export function withGridBars(analysis: Analysis): Analysis | undefined {
  if (analysis.gridBarTimesSeconds.length === 0) return undefined;
  let variant = gridVariants.get(analysis);
  if (!variant) {
    variant = { ...analysis, barTimesSeconds: analysis.gridBarTimesSeconds, barFeatures: analysis.gridBarFeatures, sectionTimesSeconds: analysis.gridSectionTimesSeconds };
    gridVariants.set(analysis, variant);
  }
  return variant;
}

/** The beats on one grid through the piece: the grid's where the tracker slid, else the tracker's. */
export function oneGridBeats(analysis: Analysis): Float32Array {
  return analysis.gridBeatTimesSeconds.length > 0 ? analysis.gridBeatTimesSeconds : analysis.beatTimesSeconds;
}

/** Whether source time `t` is more than ON_GRID_SECONDS off every beat of the grid, where the tracker's beats slid off it (false where they did not). */
export function offTheGrid(analysis: Analysis, t: number): boolean {
  if (analysis.gridBeatTimesSeconds.length === 0) return false;
  const beat = nearestTime(analysis.gridBeatTimesSeconds, t);
  return beat === undefined || Math.abs(beat - t) > ON_GRID_SECONDS;
}

/** Whether runs with this ending end on a bar line more than ON_GRID_SECONDS off every beat of the grid. */
export function endsOffGrid(analysis: Analysis, runs: Run[], ending: Ending): boolean {
  if (ending !== 'bar_line') return false;
  const last = runs[runs.length - 1];
  return offTheGrid(analysis, last.sourceStart + last.length);
}

/**
 * `planned` (made on the tracker's bars), or, when it ends on a bar line off the grid, the plan
 * `plan` makes on the grid's bars if that one does not end off the grid and `atLeastAsGood` holds.
 */
export function onGridEnding<T>(analysis: Analysis, planned: T, endOf: (plan: T) => { runs: Run[]; ending: Ending }, plan: (onGridBars: Analysis) => T | undefined, atLeastAsGood: (other: T, planned: T) => boolean): T {
  const { runs, ending } = endOf(planned);
  const variant = endsOffGrid(analysis, runs, ending) ? withGridBars(analysis) : undefined;
  if (!variant) return planned;
  const other = plan(variant);
  if (other === undefined) return planned;
  const end = endOf(other);
  return end.ending !== 'cut' && !endsOffGrid(analysis, end.runs, end.ending) && atLeastAsGood(other, planned) ? other : planned;
}
