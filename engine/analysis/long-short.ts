// The beat begins the long interval. In swung eighths (long-short, 2:1), dotted rhythms (3:1) and
// anticipations (a note pushed a sixteenth or a triplet ahead of the beat), the short interval
// comes before the beat and the long one after it. Where the pushed note is the louder (a melody
// and a bass line played on the swung "and", the drums' kick and snare on the beat), the tracker
// (beats.ts) follows the louder onsets and puts every beat on the "and". Scored music shows it:
// songs swung in eighth-note triplets with their bass and chords pushed onto the third triplet.
//
// So the onsets are laid out over one beat (each beat's span from it to the next, in PROFILE_BINS
// steps). When that profile has exactly two accents a beat, unevenly spaced, the beat is the accent
// the long interval follows; if the tracked beats sit on the other one, every beat moves onto it.
// Straight eighths (two accents half a beat apart) say nothing about which is the beat, and a
// profile of three or more accents (sixteenths, triplets) does not read as long-short: both are
// left as tracked.
import { strongestNear } from './beat-phase.ts';

/** Steps of the beat profile: 24 holds the triplet (8) and the sixteenth (6) positions. */
const PROFILE_BINS = 24;
/** The second accent is at least this strong relative to the first: a real accent, not an echo. */
const SECOND_ACCENT_MIN = 0.5;
/** Every other local maximum of the profile is at most this strong: two accents a beat, no more. */
const OTHER_ACCENTS_MAX = 0.4;
/** The short interval is at most this share of a beat: 1/3 (swing) and 1/4 (dotted) count, 1/2 (straight) does not. */
const SHORT_INTERVAL_MAX = 0.42;
/** Fewer beats than this (four bars of 4) give too few spans to read a profile from. */
const MIN_BEATS = 16;

/** The onset strength over one beat: PROFILE_BINS steps of each beat's span to the next, summed over the beats, smoothed [1 2 1] around the circle and scaled to its maximum. */
export function beatProfile(beats: Int32Array, onset: Float32Array): Float64Array {
  const sums = new Float64Array(PROFILE_BINS);
  for (let i = 0; i + 1 < beats.length; i++) {
    const span = beats[i + 1] - beats[i];
    for (let k = 0; k < PROFILE_BINS; k++) sums[k] += onset[strongestNear(onset, beats[i] + (k * span) / PROFILE_BINS)] ?? 0;
  }
  const smoothed = new Float64Array(PROFILE_BINS);
  for (let k = 0; k < PROFILE_BINS; k++) smoothed[k] = (sums[(k + PROFILE_BINS - 1) % PROFILE_BINS] + 2 * sums[k] + sums[(k + 1) % PROFILE_BINS]) / 4;
  let max = 0;
  for (const value of smoothed) max = Math.max(max, value);
  return max > 0 ? smoothed.map((value) => value / max) : smoothed;
}

/** Bins of a beat profile's local maxima, strongest first. */
function accents(profile: Float64Array): number[] {
  const maxima: number[] = [];
  for (let k = 0; k < PROFILE_BINS; k++) {
    if (profile[k] >= profile[(k + PROFILE_BINS - 1) % PROFILE_BINS] && profile[k] > profile[(k + 1) % PROFILE_BINS]) maxima.push(k);
  }
  return maxima.sort((a, b) => profile[b] - profile[a]);
}

/** Distance between two bins around the circle, in bins. */
const around = (a: number, b: number) => Math.min(Math.abs(a - b), PROFILE_BINS - Math.abs(a - b));

/**
 * How far (a share of each beat's span, -0.5..0.5) the beats move to begin the long interval: 0
 * when the profile is not long-short or the beats already begin it.
 */
export function longShortShift(profile: Float64Array): number {
  const [first, second, ...others] = accents(profile);
  if (second === undefined || profile[second] < SECOND_ACCENT_MIN) return 0;
  if (others.some((k) => profile[k] > OTHER_ACCENTS_MAX)) return 0;
  const firstToSecond = (second - first + PROFILE_BINS) % PROFILE_BINS;
  if (Math.min(firstToSecond, PROFILE_BINS - firstToSecond) > SHORT_INTERVAL_MAX * PROFILE_BINS) return 0;
  const beat = firstToSecond > PROFILE_BINS / 2 ? first : second;
  // The tracked beats are the accent nearer bin 0.
  const tracked = around(first, 0) <= around(second, 0) ? first : second;
  if (beat === tracked) return 0;
  const shift = (beat - tracked + PROFILE_BINS) % PROFILE_BINS;
  return (shift > PROFILE_BINS / 2 ? shift - PROFILE_BINS : shift) / PROFILE_BINS;
}

/**
 * `beats` (frames, ascending) moved to begin the long interval of a long-short beat (see the top of
 * the file); returned as given when there is nothing to move. Each beat moves by the shift's share
 * of its own span to the next (the last by its span from the one before); a beat moved past the
 * onsets' end is dropped, and each goes to the strongest onset next to its new place.
 */
export function onLongInterval(beats: Int32Array, onset: Float32Array): Int32Array {
  if (beats.length < MIN_BEATS) return beats;
  const shift = longShortShift(beatProfile(beats, onset));
  if (shift === 0) return beats;
  const moved: number[] = [];
  for (let i = 0; i < beats.length; i++) {
    const span = i + 1 < beats.length ? beats[i + 1] - beats[i] : beats[i] - beats[i - 1];
    const frame = strongestNear(onset, beats[i] + shift * span);
    if (frame >= 0) moved.push(frame);
  }
  return Int32Array.from(moved);
}
