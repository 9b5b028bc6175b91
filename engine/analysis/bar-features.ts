// What each bar sounds like, for choosing where an edit may join two bars: its timbre (mean log
// band energy in TIMBRE_GROUPS groups, loudness included) and its harmony (mean chroma, scaled to
// unit sum). Two bars that sound alike can follow one another without the join being heard.
import { TIMBRE_GROUPS } from './timbre.ts';

export const PITCH_CLASSES = 12;
/** Numbers stored per bar: timbre groups, then pitch classes. */
export const BAR_FEATURES = TIMBRE_GROUPS + PITCH_CLASSES;

/**
 * Features of the bars starting at `barFrames` (analysis frames); the last bar runs as long as the
 * one before it (or to the last frame). Row-major, bars x BAR_FEATURES.
 */
export function barFeatures(barFrames: Int32Array, logBands: Float32Array, bands: number, chromaFrames: Float32Array, frames: number): Float32Array {
  const out = new Float32Array(barFrames.length * BAR_FEATURES);
  const perGroup = bands / TIMBRE_GROUPS;
  for (let b = 0; b < barFrames.length; b++) {
    const from = barFrames[b];
    const previousLength = b > 0 ? barFrames[b] - barFrames[b - 1] : frames - from;
    const to = Math.min(frames, b + 1 < barFrames.length ? barFrames[b + 1] : from + previousLength);
    const row = out.subarray(b * BAR_FEATURES, (b + 1) * BAR_FEATURES);
    const span = Math.max(1, to - from);
    for (let f = from; f < to; f++) {
      for (let k = 0; k < bands; k++) row[Math.min(TIMBRE_GROUPS - 1, Math.floor(k / perGroup))] += logBands[f * bands + k] / (span * perGroup);
      for (let p = 0; p < PITCH_CLASSES; p++) row[TIMBRE_GROUPS + p] += chromaFrames[f * PITCH_CLASSES + p];
    }
    let chromaSum = 0;
    for (let p = 0; p < PITCH_CLASSES; p++) chromaSum += row[TIMBRE_GROUPS + p];
    for (let p = 0; p < PITCH_CLASSES; p++) row[TIMBRE_GROUPS + p] = chromaSum > 0 ? row[TIMBRE_GROUPS + p] / chromaSum : 0;
  }
  return out;
}

/** Weight of harmony against timbre in the distance between two bars (chroma differences are small numbers). */
const CHROMA_WEIGHT = 4;

/**
 * How different bar a sounds from bar b: the timbre difference (log energy units, loudness
 * included) plus the weighted harmony difference. 0 for identical bars.
 */
export function barDistance(features: Float32Array, a: number, b: number): number {
  let timbre = 0, chroma = 0;
  for (let k = 0; k < TIMBRE_GROUPS; k++) timbre += (features[a * BAR_FEATURES + k] - features[b * BAR_FEATURES + k]) ** 2;
  for (let p = TIMBRE_GROUPS; p < BAR_FEATURES; p++) chroma += Math.abs(features[a * BAR_FEATURES + p] - features[b * BAR_FEATURES + p]);
  return Math.sqrt(timbre / TIMBRE_GROUPS) + CHROMA_WEIGHT * chroma;
}
