// The track's bars as an edit sees them: bar lines (downbeats plus the end of the last bar),
// per-bar loudness, what a join between two bar lines sounds like, and how quiet a moment is.
import type { Analysis } from '../analysis/analyse.ts';
import { barDistance } from '../analysis/bar-features.ts';
import { runningSum } from '../analysis/running-sum.ts';
import { onsetSupport } from '../analysis/beats.ts';
import { frameAtSeconds } from '../analysis/frames.ts';

/** A join may show at most this quantile of the track's own bar-line novelty. */
export const SEAM_NOVELTY_QUANTILE = 0.9;
/** Around a time, the onset strength is averaged over this many seconds either side. */
const QUIET_WINDOW_SECONDS = 0.02;

export interface BarGrid {
  trackSeconds: number;
  /** Bar lines in seconds: line(i) starts bar i; line(bars) ends the last bar. */
  lines: Float64Array;
  bars: number;
  /** Mean RMS per bar (linear). */
  barRms: Float64Array;
  /** A join may sound at most this different: SEAM_NOVELTY_QUANTILE of the track's own bar lines. */
  seamLimit: number;
  /** When no join is within seamLimit: the track's own most abrupt bar line (a section change). */
  relaxedSeamLimit: number;
  beatSeconds: number;
  /** Running sum of the RMS envelope (rmsSum[i] = sum of rms[0..i)). */
  rmsSum: Float64Array;
  /** The median of the onset under the bar lines between bars (lineOnsetShare's unit). */
  medianLineOnset: number;
  analysis: Analysis;
}

/** Mean RMS (linear) of the source between two times, from a running sum: O(1) per call. */
export function rmsBetween(grid: BarGrid, from: number, to: number): number {
  const { rmsSum, analysis } = grid;
  const a = Math.min(rmsSum.length - 1, Math.max(0, Math.floor(from * analysis.frameRate)));
  const b = Math.min(rmsSum.length - 1, Math.max(a + 1, Math.ceil(to * analysis.frameRate)));
  return b > a ? (rmsSum[b] - rmsSum[a]) / (b - a) : 0;
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return Infinity;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const grids = new WeakMap<Analysis, BarGrid>();

/** The bar grid of an analysis, worked out once per analysis object (a worker keeps its tracks' analyses). */
export function barGrid(analysis: Analysis): BarGrid {
  let grid = grids.get(analysis);
  if (!grid) {
    grid = newBarGrid(analysis);
    grids.set(analysis, grid);
  }
  return grid;
}

// Keyed by the RMS envelope, not the analysis: an analysis with its bars on one grid
// (grid-ending.ts) has a bar grid of its own over the same envelope.
const rmsSums = new WeakMap<Float32Array, Float64Array>();
function rmsSumOf(rms: Float32Array): Float64Array {
  let sum = rmsSums.get(rms);
  if (!sum) {
    sum = runningSum(rms);
    rmsSums.set(rms, sum);
  }
  return sum;
}

function newBarGrid(analysis: Analysis): BarGrid {
  const downbeats = analysis.barTimesSeconds;
  const bars = downbeats.length;
  const lines = new Float64Array(bars + 1);
  lines.set(downbeats);
  const lastLength = bars > 1 ? downbeats[bars - 1] - downbeats[bars - 2] : analysis.durationSeconds;
  lines[bars] = Math.min(analysis.durationSeconds, (downbeats[bars - 1] ?? 0) + lastLength);
  const rmsSum = rmsSumOf(analysis.rms);
  const natural: number[] = [];
  for (let i = 1; i < bars; i++) natural.push(barDistance(analysis.barFeatures, i - 1, i));
  const beats = analysis.beatTimesSeconds;
  const beatSeconds = beats.length > 1 ? (beats[beats.length - 1] - beats[0]) / (beats.length - 1) : 0.5;
  const lineOnsets = Array.from(lines.subarray(1, bars), (t) => onsetSupport(analysis.onset, frameAtSeconds(t, analysis.frameRate)));
  const grid = { trackSeconds: analysis.durationSeconds, lines, bars, barRms: new Float64Array(bars), seamLimit: quantile(natural, SEAM_NOVELTY_QUANTILE), relaxedSeamLimit: quantile(natural, 1), beatSeconds, rmsSum, medianLineOnset: quantile(lineOnsets, 0.5), analysis };
  for (let i = 0; i < bars; i++) grid.barRms[i] = rmsBetween(grid, lines[i], lines[i + 1]);
  return grid;
}

/** Index of the bar that contains time t (-1 before the first downbeat). */
export function barAt(grid: BarGrid, t: number): number {
  let lo = 0, hi = grid.bars - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (grid.lines[mid] <= t + 1e-6) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Whether source times `a` and `b` fall in the same bar. */
export function sameBar(grid: BarGrid, a: number, b: number): boolean {
  return barAt(grid, a) === barAt(grid, b);
}

/** The RMS level of the bar that contains source time `t`: louder bars first is `barLevelAt(b) - barLevelAt(a)`. */
export function barLevelAt(grid: BarGrid, t: number): number {
  return grid.barRms[barAt(grid, t)];
}

/**
 * Cost of leaving the track at bar line `out` (bar out-1 was the last played) and going on at
 * bar line `into` (bar into plays next), relative to the seam limit; undefined when the join
 * would sound more different than SEAM_NOVELTY_QUANTILE of the track's own bar lines. It weighs
 * what the listener hears across the join (bar out-1 then bar into) most, then whether the new
 * bar is like the one it replaces and the old one like the one the new bar followed. Bar line 0
 * may be gone into (the track's first downbeat: a climax in the first bar is reached that way).
 */
export function seamCost(grid: BarGrid, out: number, into: number, relaxed = false): number | undefined {
  if (out === into || out < 1 || into < 0 || out >= grid.bars || into >= grid.bars) return undefined;
  return joinCost(grid, out - 1, out, into, relaxed);
}

/**
 * Cost of going on at bar line `into` after the track's last bar, as seamCost judges a join
 * (undefined beyond the seam limit): a loop piece's end wraps to earlier bars so. Nothing followed
 * the last bar, so what is heard across the join is all there is to compare it with.
 */
export function wrapSeamCost(grid: BarGrid, into: number, relaxed = false): number | undefined {
  if (into < 0 || into >= grid.bars - 1) return undefined;
  return joinCost(grid, grid.bars - 1, undefined, into, relaxed);
}

/** seamCost's weighing of bar `last` followed by bar `into`, in place of bar `next` (none after the track's last bar). */
function joinCost(grid: BarGrid, last: number, next: number | undefined, into: number, relaxed: boolean): number | undefined {
  const features = grid.analysis.barFeatures;
  const heard = barDistance(features, last, into);
  if (heard > (relaxed ? grid.relaxedSeamLimit : grid.seamLimit)) return undefined;
  const replaced = next === undefined ? heard : barDistance(features, next, into);
  // Into the first bar nothing preceded it: what is heard is all there is to compare.
  const preceded = into > 0 ? barDistance(features, last, into - 1) : heard;
  return (heard + 0.5 * replaced + 0.5 * preceded) / (2 * Math.max(grid.seamLimit, 1e-6));
}

/** Onset strength around t relative to the track's median: below 1 is quieter than usual. */
export function onsetRatio(grid: BarGrid, t: number): number {
  const { onset, frameRate } = grid.analysis;
  const a = Math.max(0, Math.floor((t - QUIET_WINDOW_SECONDS) * frameRate));
  const b = Math.min(onset.length, Math.ceil((t + QUIET_WINDOW_SECONDS) * frameRate) + 1);
  let max = 0;
  for (let i = a; i < b; i++) max = Math.max(max, onset[i]);
  return max / (medianOnset(grid) || 1e-9);
}

// Keyed by the onset envelope, not the grid: another anchor's grid is a copy with the same
// envelope (anchor-with-room.ts), and sorting a track's frames again cost ~1 ms per anchor.
const medians = new WeakMap<Float32Array, number>();
function medianOnset(grid: BarGrid): number {
  const { onset } = grid.analysis;
  let median = medians.get(onset);
  if (median === undefined) {
    // A typed array sorts numerically without a comparator: ~10x faster than an Array over a track's frames.
    const sorted = Float32Array.from(onset).sort();
    median = sorted.length ? sorted[Math.floor(sorted.length / 2)] : 0;
    medians.set(onset, median);
  }
  return median;
}

/**
 * The onset under time t (onsetSupport) as a share of the median bar line's: well below 1, a bar
 * line with little heard on it; 1 when there is nothing to compare with (no bar line between
 * bars, or no onset under any).
 */
export function lineOnsetShare(grid: BarGrid, t: number): number {
  const median = grid.medianLineOnset;
  if (!(median > 0 && Number.isFinite(median))) return 1;
  return onsetSupport(grid.analysis.onset, frameAtSeconds(t, grid.analysis.frameRate)) / median;
}

export function isSectionStart(grid: BarGrid, t: number): boolean {
  return grid.analysis.sectionTimesSeconds.some((s) => Math.abs(s - t) < 1e-3);
}
