// Whether the beats around a bar line keep the track's beat period. Where the beat tracker moves
// from one phase of the music to the other (the stronger onsets pass from the beats to the
// off-beats), it squeezes or stretches a few beat periods to get there, and the bar lines in
// that stretch lie between the music's beats: tracker modules, whose scores give the true beats,
// had edits stop 54-68 ms off a beat where three of our periods ran 0.59 s against 0.64 s.
import { firstAtOrAfter } from '../analysis/beats.ts';

/** Beat periods either side of a bar line that are compared with the track's period. */
const STEADY_BEATS = 2;
/** A beat period this far from the track's (a share of it) is off the music's pulse... */
const UNSTEADY_SHARE = 0.04;
/** ...when it is also off by more than this many analysis frames (a period of ~30 frames rounds by ~3%). */
const UNSTEADY_FRAMES = 1.5;

/**
 * The share (0-1) of the STEADY_BEATS beat periods either side of time `t` (seconds) that stray
 * from the track's mean beat period `period` (seconds: bar-grid.ts beatSeconds); `beats` are the
 * track's beat times (ascending seconds).
 */
export function unsteadyShare(beats: Float32Array, period: number, frameRate: number, t: number): number {
  if (beats.length < 2) return 0;
  const limit = Math.max(UNSTEADY_SHARE * period, UNSTEADY_FRAMES / frameRate);
  // The first beat from half a period before t: t's own beat when t is on one.
  const at = firstAtOrAfter(beats, t - period / 2);
  let count = 0;
  let unsteady = 0;
  for (let i = Math.max(1, at - STEADY_BEATS + 1); i <= Math.min(beats.length - 1, at + STEADY_BEATS); i++) {
    count++;
    if (Math.abs(beats[i] - beats[i - 1] - period) > limit) unsteady++;
  }
  return count > 0 ? unsteady / count : 0;
}
