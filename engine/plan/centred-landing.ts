// A landing made surer: a plan whose clip hears its peak within the landing tolerance of H, but
// a frame or more off it, moved by that much (up to 15 ms) so its clip hears the peak nearer H.
// The encoded clip's beat tracking can settle a frame away from the check's (the two agree to the
// frame on most clips, not all), and a landing a frame from the tolerance's edge then misses.
import type { Analysis } from '../analysis/analyse.ts';
import { MPEG1_FRAME_SAMPLES } from '../mp3/frame-header.ts';
import { PLAN_SAMPLE_RATE, type Run, placedParts } from './plan.ts';
import { landsAtOtherPhases, trackedLanding } from './peak-landing.ts';
import { type Anchored, assurance } from './anchored-edit.ts';
import { SHORTEST_LAST_PART_SECONDS } from './after-peak.ts';
import { shiftedRuns } from './shifted-landing.ts';
import { anchoredAt } from './anchor-with-room.ts';

/**
 * A landing's clip hears its peak off H by less than the landing tolerance, but by more than this
 * (about a frame of the analysis, 11.6 ms): one frame more, as the encoded clip's beat tracking can
 * settle, and it misses. Of 256 held-out edits that landed, 18 were heard 12-24 ms off H, and the
 * check had foreseen 15 of those to the tenth of a millisecond.
 */
const CENTRE_FROM_SECONDS = 0.012;
/** The largest move that centres a landing: the source's own peak then still plays within 25 ms of H (LANDING_SECONDS). */
const CENTRE_MAX_SECONDS = 0.015;

/**
 * `runs` with their content moved `shift` seconds later in the clip (earlier when negative), for a
 * move of a few milliseconds: the clip's start takes that much more (less) before its first run,
 * and its end that much less (more) after. A clip that ends with the track, which cannot end
 * later, starts its last run that much earlier instead (the bar across that join lasts that much
 * longer). Undefined when it does not fit.
 */
export function centredRuns(runs: Run[], shift: number, trackSeconds: number, peakSeconds: number): Run[] | undefined {
  const moved = shiftedRuns(runs, shift, trackSeconds);
  const last = runs.length - 1;
  // Moving the last run's start moves nothing it plays: the peak must play before it.
  const lastHoldsPeak = peakSeconds >= runs[last].sourceStart && peakSeconds < runs[last].sourceStart + runs[last].length;
  if (moved || shift >= 0 || last === 0 || lastHoldsPeak) return moved;
  const alt = runs.map((run) => ({ ...run }));
  alt[0].sourceStart -= shift;
  alt[0].length += shift;
  alt[last].sourceStart += shift;
  alt[last].length -= shift;
  return alt[0].length >= SHORTEST_LAST_PART_SECONDS && alt[last].sourceStart >= 0 ? alt : undefined;
}

/** How far frame alignment may move a part's end from its bar line (plan.ts placedParts: half an MP3 frame), seconds. */
const FRAME_ALIGNMENT_SECONDS = MPEG1_FRAME_SAMPLES / 2 / PLAN_SAMPLE_RATE;

/** Where the clip of `runs` (placed as an edit with a hit point, anchored at `peakSeconds`) stops playing the source, seconds. */
function placedEnd(runs: Run[], peakSeconds: number): number {
  const durationSeconds = runs.reduce((sum, run) => sum + run.length, 0);
  const parts = placedParts({ mode: 'edit', durationSeconds, hitPointSeconds: 0 }, runs, peakSeconds);
  const last = parts[parts.length - 1];
  return (last.sourceStart + last.length) / PLAN_SAMPLE_RATE;
}

/**
 * The move towards `shift` a plan may make (seconds): a clip ending on a bar line moves its end by
 * the move, so it moves only as far as keeps its end as near that line as frame alignment alone
 * may (half an MP3 frame): a true beat's end is worth as much as a centred peak.
 */
function allowedShift(runs: Run[], shift: number, peakSeconds: number, ending: Anchored['choice']['ending']): number {
  if (ending !== 'bar_line') return shift;
  const last = runs[runs.length - 1];
  const aligned = placedEnd(runs, peakSeconds) - (last.sourceStart + last.length);
  // Moved `shift` later in the clip, the end plays `shift` sooner in the source: aligned - shift off the line.
  return Math.max(aligned - FRAME_ALIGNMENT_SECONDS, Math.min(aligned + FRAME_ALIGNMENT_SECONDS, shift));
}

/**
 * A plan that lands (`landed`, its clip heard at `heardSeconds`: every landing the search makes
 * carries it) moved by up to CENTRE_MAX_SECONDS towards hearing its peak right at H, when it hears
 * it more than CENTRE_FROM_SECONDS off (and for an ending on a bar line, no further than
 * allowedShift): the moved plan when its clip lands as surely (anchored-edit.ts assurance) and
 * nearer H, else `landed`.
 */
export function centredLanding(analysis: Analysis, hit: number, landed: Anchored): Anchored {
  if (landed.heardSeconds === undefined) return landed;
  const off = landed.heardSeconds - hit;
  if (Math.abs(off) <= CENTRE_FROM_SECONDS) return landed;
  const { runs: before, ending } = landed.choice;
  const shift = allowedShift(before, Math.max(-CENTRE_MAX_SECONDS, Math.min(CENTRE_MAX_SECONDS, -off)), landed.peakSeconds, ending);
  // A move the other way, or none, brings the peak no nearer H.
  if (shift * off >= 0) return landed;
  const runs = centredRuns(before, shift, analysis.durationSeconds, landed.peakSeconds);
  if (!runs) return landed;
  const anchor = anchoredAt(analysis, landed.peakSeconds);
  const { landing, seconds } = trackedLanding(anchor, runs, hit);
  if (landing === 'miss' || Math.abs(seconds - hit) >= Math.abs(off)) return landed;
  // A steady thin landing moved is steady only if it still lands at the other onset phases.
  const steady = landing === 'thin' && landed.steady === true && landsAtOtherPhases(anchor, runs, hit);
  const moved = { ...landed, choice: { ...landed.choice, runs }, landing, heardSeconds: seconds, steady };
  return assurance(moved) >= assurance(landed) ? moved : landed;
}
