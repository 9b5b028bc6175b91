// The planning context of one track: its beat grid, its bars, what a join between two bar lines
// sounds like, how quiet a moment is, and where the track's own ending only decays. Derived once
// from an Analysis and never changed: every plan of the track reads the same record.
import type { Analysis } from '../analysis/analyse.ts';
import { barDistance } from '../analysis/bar-features.ts';
import { runningSum } from '../analysis/running-sum.ts';
import { firstAtOrAfter, onsetSupport } from '../analysis/beats.ts';
import { frameAtSeconds } from '../analysis/frames.ts';

/** A join may sound at most this different: this quantile of the track's own bar-line novelty. */
export const SEAM_NOVELTY_QUANTILE = 0.9;
/** Around a time, the strongest onset within this many seconds either side is what is heard there. */
const QUIET_WINDOW_SECONDS = 0.02;
/**
 * The decaying tail of the track's ending starts after its last attack: the last frame whose
 * onset is at least this share of the track's median beat onset.
 */
const TAIL_ATTACK_SHARE = 0.2;
/** The last attack itself plays for at least this long before an ending may cut its decay. */
const TAIL_ATTACK_SECONDS = 0.15;
/** ...and the decay is cut only where it has fallen to this share of the track's median bar level (-20 dB): inaudibly. */
const TAIL_QUIET_SHARE = 0.1;
/** A beat interval this far (a share of the local period) from its neighbour's is unsteady. */
const UNSTEADY_INTERVAL_SHARE = 0.1;

export interface PlanGrid {
  trackSeconds: number;
  /** Beats in seconds: the beats on one grid through the piece where the analysis has them, else the tracker's. */
  beats: Float64Array;
  /** Per beat, 0..1: how surely it is a beat (heard by an onset, spaced as its neighbours). */
  beatConfidence: Float64Array;
  /** The median beat period, seconds. */
  beatSeconds: number;
  /** Per beat, its place in its bar (0 on a downbeat); -1 before the first downbeat. */
  beatInBar: Int32Array;
  /** Bar lines in seconds: lines[i] starts bar i; lines[bars] ends the last bar. */
  lines: Float64Array;
  /** Per bar line (lines[0..bars)), the confidence of the beat it stands on. */
  lineConfidence: Float64Array;
  bars: number;
  /** Per bar, its timbre and harmony (analysis/bar-features.ts), bars x BAR_FEATURES. */
  barFeatures: Float32Array;
  /** Mean RMS per bar (linear). */
  barRms: Float64Array;
  sections: Float64Array;
  /** A join may sound at most this different: SEAM_NOVELTY_QUANTILE of the track's own bar lines. */
  seamLimit: number;
  /** The track's own most abrupt bar line: a join beyond it would be heard as a mistake. */
  relaxedSeamLimit: number;
  /** Running sum of the RMS envelope (rmsSum[i] = sum of rms[0..i)). */
  rmsSum: Float64Array;
  frameRate: number;
  onset: Float32Array;
  medianOnset: number;
  /** From here to trackSeconds the track's ending only decays: an end anywhere in it ends with the track. */
  tailStart: number;
  peakSeconds: number;
}

function quantile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return Infinity;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** The beats and bars a plan joins on: the analysis's one-grid ones where it kept them (the tracker slid off the beat somewhere), else the tracker's. */
function beatsAndBars(analysis: Analysis) {
  const oneGrid = analysis.gridBeatTimesSeconds.length > 0 && analysis.gridBarTimesSeconds.length > 0;
  return oneGrid
    ? { beats: analysis.gridBeatTimesSeconds, downbeats: analysis.gridBarTimesSeconds, features: analysis.gridBarFeatures, sections: analysis.gridSectionTimesSeconds }
    : { beats: analysis.beatTimesSeconds, downbeats: analysis.barTimesSeconds, features: analysis.barFeatures, sections: analysis.sectionTimesSeconds };
}

/** Per beat: its onset support (`support`) against the median beat's (capped at 1), times how evenly it sits between its neighbours. */
function beatConfidences(beats: ArrayLike<number>, support: Float64Array): Float64Array {
  const median = quantile(support, 0.5) || 1e-9;
  return Float64Array.from(support, (heard, i) => {
    const before = i > 0 ? beats[i] - beats[i - 1] : undefined;
    const after = i + 1 < beats.length ? beats[i + 1] - beats[i] : undefined;
    const period = before ?? after ?? 0;
    const uneven = before !== undefined && after !== undefined && period > 0 ? Math.abs(after - before) / period : 0;
    const steadiness = Math.max(0, 1 - Math.max(0, uneven - UNSTEADY_INTERVAL_SHARE) / UNSTEADY_INTERVAL_SHARE);
    return Math.min(1, heard / median) * steadiness;
  });
}

/**
 * Where the track's ending has decayed to inaudible: after its last attack, the first frame from
 * which the RMS stays under `quietRms`; the track's end when the ending never gets that quiet.
 */
function tailStartOf(onset: Float32Array, rms: Float32Array, frameRate: number, beatOnset: number, quietRms: number, trackSeconds: number): number {
  const threshold = TAIL_ATTACK_SHARE * beatOnset;
  let last = onset.length - 1;
  while (last > 0 && !(onset[last] >= threshold)) last--;
  let quiet = rms.length;
  while (quiet > 0 && quiet - 1 > last && rms[quiet - 1] <= quietRms) quiet--;
  return Math.min(trackSeconds, Math.max(quiet / frameRate, last / frameRate + TAIL_ATTACK_SECONDS));
}

/** The planning context of a track: worked out once per analysis and kept with it by the caller. */
export function planGrid(analysis: Analysis): PlanGrid {
  const { beats, downbeats, features, sections } = beatsAndBars(analysis);
  const { onset, frameRate } = analysis;
  const bars = downbeats.length;
  const lines = new Float64Array(bars + 1);
  lines.set(downbeats);
  const lastLength = bars > 1 ? downbeats[bars - 1] - downbeats[bars - 2] : analysis.durationSeconds;
  lines[bars] = Math.min(analysis.durationSeconds, (downbeats[bars - 1] ?? 0) + lastLength);
  const beatTimes = Float64Array.from(beats);
  const beatOnsets = Float64Array.from(beatTimes, (t) => onsetSupport(onset, frameAtSeconds(t, frameRate)));
  const beatConfidence = beatConfidences(beatTimes, beatOnsets);
  const confidenceAt = (t: number) => {
    const i = nearestIndex(beatTimes, t);
    return i >= 0 && Math.abs(beatTimes[i] - t) < 1e-3 ? beatConfidence[i] : 0;
  };
  const beatInBar = new Int32Array(beatTimes.length).fill(-1);
  for (let i = 0, bar = -1, since = 0; i < beatTimes.length; i++) {
    if (bar + 1 < bars && Math.abs(beatTimes[i] - downbeats[bar + 1]) < 1e-3) {
      bar++;
      since = 0;
    }
    if (bar >= 0) beatInBar[i] = since++;
  }
  const natural = Array.from({ length: Math.max(0, bars - 1) }, (_, i) => barDistance(features, i, i + 1));
  const rmsSum = runningSum(analysis.rms);
  const barRms = Float64Array.from({ length: bars }, (_, i) => meanRms(rmsSum, frameRate, lines[i], lines[i + 1]));
  return {
    trackSeconds: analysis.durationSeconds,
    beats: beatTimes,
    beatConfidence,
    beatSeconds: quantile(Float64Array.from({ length: Math.max(0, beatTimes.length - 1) }, (_, i) => beatTimes[i + 1] - beatTimes[i]), 0.5),
    beatInBar,
    lines,
    lineConfidence: Float64Array.from(downbeats, confidenceAt),
    bars,
    barFeatures: features,
    barRms,
    sections: Float64Array.from(sections),
    seamLimit: quantile(natural, SEAM_NOVELTY_QUANTILE),
    relaxedSeamLimit: quantile(natural, 1),
    rmsSum,
    frameRate,
    onset,
    medianOnset: quantile(onset, 0.5),
    tailStart: tailStartOf(onset, analysis.rms, frameRate, quantile(beatOnsets, 0.5), TAIL_QUIET_SHARE * quantile(barRms, 0.5), analysis.durationSeconds),
    peakSeconds: analysis.peakSeconds,
  };
}

/** The index of the time in `sorted` nearest to `t`; -1 when empty. */
export function nearestIndex(sorted: ArrayLike<number>, t: number): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  if (sorted.length === 0) return -1;
  if (lo === sorted.length) return lo - 1;
  return lo > 0 && t - sorted[lo - 1] <= sorted[lo] - t ? lo - 1 : lo;
}

/** Mean RMS (linear) of the source between two times, from the running sum: O(1). */
export function rmsBetween(grid: PlanGrid, from: number, to: number): number {
  return meanRms(grid.rmsSum, grid.frameRate, from, to);
}

/** Mean RMS between two times from a running sum of the RMS envelope (`frameRate` frames a second). */
function meanRms(rmsSum: Float64Array, frameRate: number, from: number, to: number): number {
  const a = Math.min(rmsSum.length - 1, Math.max(0, Math.floor(from * frameRate)));
  const b = Math.min(rmsSum.length - 1, Math.max(a + 1, Math.ceil(to * frameRate)));
  return b > a ? (rmsSum[b] - rmsSum[a]) / (b - a) : 0;
}

/**
 * Beat `i`'s place in its bar (0 on the bar line). A beat before the first bar line is a pickup: it
 * takes the place it would have at the end of a bar as long as the first, counted back from that line.
 */
export function placeInBar(grid: PlanGrid, i: number): number {
  if (grid.beatInBar[i] >= 0 || grid.bars === 0) return grid.beatInBar[i];
  const first = firstAtOrAfter(grid.beats, grid.lines[0] - 1e-3);
  let perBar = 1;
  while (first + perBar < grid.beats.length && grid.beatInBar[first + perBar] > 0) perBar++;
  return (((i - first) % perBar) + perBar) % perBar;
}

/** Index of the bar that contains time t (-1 before the first downbeat). */
export function barAt(grid: PlanGrid, t: number): number {
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

/** A join that sounds more different than SEAM_NOVELTY_QUANTILE of the track's own bar lines costs this much more. */
const ROUGH_SEAM_COST = 1;

/**
 * Cost of leaving the track at bar line `out` (bar out-1 was the last played) and going on at bar
 * line `into` (bar into plays next), in units of the seam limit; undefined when the join would
 * sound more different than the track's most abrupt bar line. It weighs what is heard across the
 * join (bar out-1 then bar into) most, then whether the new bar is like the one it replaces and
 * the old one like the bar the new one followed.
 */
export function seamCost(grid: PlanGrid, out: number, into: number): number | undefined {
  if (out === into || out < 1 || into < 0 || out >= grid.bars || into >= grid.bars) return undefined;
  const features = grid.barFeatures;
  const heard = barDistance(features, out - 1, into);
  if (heard > grid.relaxedSeamLimit) return undefined;
  const rough = heard > grid.seamLimit ? ROUGH_SEAM_COST : 0;
  const replaced = barDistance(features, out, into);
  const preceded = into > 0 ? barDistance(features, out - 1, into - 1) : heard;
  return rough + (heard + 0.5 * replaced + 0.5 * preceded) / (2 * Math.max(grid.seamLimit, 1e-6));
}

/** Onset strength around t against the track's median: below 1 is quieter than usual. */
export function onsetRatio(grid: PlanGrid, t: number): number {
  const { onset, frameRate } = grid;
  const a = Math.max(0, Math.floor((t - QUIET_WINDOW_SECONDS) * frameRate));
  const b = Math.min(onset.length, Math.ceil((t + QUIET_WINDOW_SECONDS) * frameRate) + 1);
  let max = 0;
  for (let i = a; i < b; i++) max = Math.max(max, onset[i]);
  return max / (grid.medianOnset || 1e-9);
}

export function isSectionStart(grid: PlanGrid, t: number): boolean {
  return grid.sections.some((s) => Math.abs(s - t) < 1e-3);
}

/** The beats of source [from, to) as a part starting at clip time `clipStart` plays them, in clip seconds. */
export function beatsInClip(times: ArrayLike<number>, from: number, to: number, clipStart: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < times.length; i++) if (times[i] >= from && times[i] < to) out.push(clipStart + times[i] - from);
  return out;
}
