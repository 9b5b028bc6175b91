// Segment selection: where a clip of D seconds should start. Candidates start on bar or section
// boundaries (beats as a fallback); each is scored for start and end quality, cut smoothness,
// representative energy, the climax, and silence. With a hit point H the start is pinned to
// peak - H (within 1 s, snapped to a beat) so the climax lands at H.
import type { Analysis } from './analysis/analyse.ts';
import { EngineError } from './errors.ts';
import { nearestTime } from './analysis/beats.ts';
import { runningCountBelow, runningSum } from './analysis/running-sum.ts';

export const MIN_CLIP_SECONDS = 10;
export const MAX_CLIP_SECONDS = 300;
/** The spec's precision for the hit point: the peak lands within this many seconds of H. */
export const HIT_POINT_TOLERANCE_SECONDS = 1;
/** A boundary start is taken for a hit point only if the peak plays at least this long before the clip's end (its time, to the ms, inside the clip). */
const PEAK_BEFORE_END_SECONDS = 0.001;

export interface Segment {
  startSeconds: number;
  durationSeconds: number;
  /** Where the dominant peak lands in the clip, or null when it falls outside. */
  hitPointSeconds: number | null;
  score: number;
}

interface Candidate {
  start: number;
  boundary: number; // 1 section, 0.8 bar, 0.4 beat
}

function nearestDistance(sorted: Float32Array, t: number): number {
  const nearest = nearestTime(sorted, t);
  return nearest === undefined ? Infinity : Math.abs(nearest - t);
}

/** Frames [a, b) that a span of seconds covers, within the envelope. */
function framesOver(length: number, frameRate: number, from: number, to: number): { a: number; b: number } {
  return { a: Math.max(0, Math.floor(from * frameRate)), b: Math.min(length, Math.ceil(to * frameRate)) };
}

/** The mean of an envelope over a span of seconds, from its running sum (a candidate window spans thousands of frames). */
function meanOver(values: Float32Array, frameRate: number, from: number, to: number): number {
  const { a, b } = framesOver(values.length, frameRate, from, to);
  const sum = runningSum(values);
  return b > a ? (sum[b] - sum[a]) / (b - a) : 0;
}

/** The share of the loudest frame's RMS below which a frame counts as silent. */
const SILENT_SHARE = 0.02;

const silentCounts = new WeakMap<Float32Array, Int32Array>();

/** The running count of silent frames of an RMS envelope, made once per array (a worker keeps its tracks' analyses). */
function silentFrameCount(rms: Float32Array): Int32Array {
  let count = silentCounts.get(rms);
  if (!count) {
    let maxRms = 0;
    for (const v of rms) maxRms = Math.max(maxRms, v);
    count = runningCountBelow(rms, SILENT_SHARE * maxRms);
    silentCounts.set(rms, count);
  }
  return count;
}

/**
 * Scores a candidate start. Window means and silence are read from running sums: a scan of every
 * window frame by frame took ~6 ms per segment without a hit point (hundreds of candidate starts,
 * each thousands of frames), as much as the rest of a segment clip's plan and splice.
 */
function segmentScorer(analysis: Analysis, duration: number) {
  const { rms, onset, frameRate } = analysis;
  const trackRms = meanOver(rms, frameRate, 0, analysis.durationSeconds) || 1e-9;
  const trackOnset = meanOver(onset, frameRate, 0, analysis.durationSeconds) || 1e-9;
  const silentCount = silentFrameCount(rms);
  return (candidate: Candidate): number => {
    const start = candidate.start;
    const end = start + duration;
    const endOnBar = nearestDistance(analysis.barTimesSeconds, end) < 0.06 ? 1 : 0;
    const endOnBeat = Math.max(0, 1 - nearestDistance(analysis.beatTimesSeconds, end) / 0.25);
    const endQuality = endOnBar ? 1 : 0.5 * endOnBeat;
    // A strong onset just before the end would be cut off mid-note; one just before the start would be a clipped pickup.
    const cutActivity = (meanOver(onset, frameRate, end - 0.15, end + 0.02) + meanOver(onset, frameRate, start - 0.12, start - 0.01)) / (2 * trackOnset);
    const energy = Math.min(1.3, meanOver(rms, frameRate, start, end) / trackRms);
    const peak = analysis.peakSeconds;
    const climax = peak >= start + 2 && peak <= end - 4 ? 1 : 0;
    const { a, b } = framesOver(rms.length, frameRate, start, end);
    const silence = b > a ? (silentCount[b] - silentCount[a]) / (b - a) : 0;
    return candidate.boundary + 0.7 * endQuality - 0.3 * Math.min(3, cutActivity) + energy + 0.8 * climax - 2 * silence;
  };
}

function candidates(analysis: Analysis, latestStart: number): Candidate[] {
  const list: Candidate[] = [{ start: 0, boundary: 0.8 }];
  const add = (times: Float32Array, boundary: number) => {
    for (const t of times) if (t >= 0 && t <= latestStart) list.push({ start: t, boundary });
  };
  add(analysis.sectionTimesSeconds, 1);
  add(analysis.barTimesSeconds, 0.8);
  add(analysis.beatTimesSeconds, 0.4);
  return list;
}

export function feasibleHitPoints(analysis: Analysis, duration: number): { min: number; max: number } {
  const latestStart = analysis.durationSeconds - duration;
  const peak = analysis.peakSeconds;
  return {
    min: Math.max(0, peak - latestStart - HIT_POINT_TOLERANCE_SECONDS),
    max: Math.min(duration, peak + HIT_POINT_TOLERANCE_SECONDS),
  };
}

/** A typed error when a clip of `duration` seconds cannot be cut from the track. */
export function checkDurationAvailable(analysis: Analysis, duration: number): void {
  if (duration <= analysis.durationSeconds) return;
  const max = Math.floor(analysis.durationSeconds * 1000) / 1000;
  throw new EngineError('duration_unavailable', `duration_seconds ${duration} is longer than the track (${max} s); choose ${MIN_CLIP_SECONDS} to ${max}`, { min: MIN_CLIP_SECONDS, max });
}

export function selectSegment(analysis: Analysis, durationSeconds: number, hitPointSeconds?: number): Segment {
  const duration = durationSeconds;
  const trackSeconds = analysis.durationSeconds;
  checkDurationAvailable(analysis, duration);
  const latestStart = trackSeconds - duration;
  const score = segmentScorer(analysis, duration);
  let pool = candidates(analysis, latestStart);
  let target: number | undefined;
  if (hitPointSeconds !== undefined) {
    const { min, max } = feasibleHitPoints(analysis, duration);
    if (hitPointSeconds < min || hitPointSeconds > max) {
      throw new EngineError(
        'hit_point_unreachable',
        `hit_point_seconds ${hitPointSeconds} cannot be met: the track's peak is at ${analysis.peakSeconds.toFixed(2)} s, so with duration_seconds ${duration} the hit point must be from ${min.toFixed(2)} to ${max < duration ? max.toFixed(2) : `under ${duration}`}`,
        { min: Math.round(min * 100) / 100, max: Math.round(max * 100) / 100, peak_seconds: Math.round(analysis.peakSeconds * 100) / 100 },
      );
    }
    target = analysis.peakSeconds - hitPointSeconds;
    const tolerance = HIT_POINT_TOLERANCE_SECONDS * 0.9; // a margin under the promised 1 s
    // Near the hit point, and the peak inside the clip (H close to D: a boundary within the
    // tolerance could start the clip after it, or end it just before the peak).
    const peakInClip = (start: number) => analysis.peakSeconds - start >= 0 && analysis.peakSeconds - start <= duration - PEAK_BEFORE_END_SECONDS;
    pool = pool.filter((c) => Math.abs(c.start - target!) <= tolerance && peakInClip(c.start));
    // Always possible: the exact start, clamped into the track.
    pool.push({ start: Math.min(latestStart, Math.max(0, target)), boundary: 0 });
  }
  let best: Segment | undefined;
  for (const candidate of pool) {
    const s = score(candidate) - (target === undefined ? 0 : 2 * Math.abs(candidate.start - target));
    if (!best || s > best.score || (s === best.score && candidate.start < best.startSeconds)) {
      best = { startSeconds: candidate.start, durationSeconds: duration, hitPointSeconds: null, score: s };
    }
  }
  const chosen = best!;
  const landing = analysis.peakSeconds - chosen.startSeconds;
  chosen.hitPointSeconds = landing >= 0 && landing < duration ? landing : null;
  return chosen;
}
