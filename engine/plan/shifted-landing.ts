// The last resort of an edit with a hit point that no plan lands: the missed plan with its
// content moved by what its clip's peak misses H by. A clip's beat tracking can settle a fraction
// of a beat away from the source's beats (tempo-ambiguous or loosely played pieces), so its peak is
// heard 30-400 ms off H on every plan of the same bars; moved that much later or earlier, the clip
// hears its peak at H, at the cost of a start off the downbeat (a pickup of that much, or that much
// of the downbeat left out) and an ending cut by that much.
import type { Analysis } from '../analysis/analyse.ts';
import type { Run } from './plan.ts';
import { LANDING_SECONDS, trackedPeakSeconds } from './peak-landing.ts';
import type { Anchored } from './anchored-edit.ts';
import { SHORTEST_LAST_PART_SECONDS } from './after-peak.ts';
import { heardSourceSeconds } from './anchor-with-room.ts';

/**
 * The largest total move (seconds): the misses it was made for were 30-380 ms off H (a fraction
 * of a beat at 80-140 BPM); a bigger move is a clip hearing another beat, not the same one settled off.
 */
const MAX_SHIFT_SECONDS = 0.4;
/** Moves tried at most: a moved clip's peak can settle off H again, by a different amount. */
const SHIFT_ROUNDS = 3;

/**
 * `runs` with their content moved `shift` seconds later in the clip (earlier when negative): the
 * first run starts that much earlier in the source and the last ends that much sooner (a single
 * run simply starts that much earlier). Undefined when that leaves the source or a part too short.
 */
export function shiftedRuns(runs: Run[], shift: number, trackSeconds: number): Run[] | undefined {
  const moved = runs.map((run) => ({ ...run }));
  const first = moved[0];
  const last = moved[moved.length - 1];
  first.sourceStart -= shift;
  if (moved.length > 1) {
    first.length += shift;
    last.length -= shift;
  }
  const fits = first.sourceStart >= 0 && last.sourceStart + last.length <= trackSeconds + 1e-9;
  return fits && moved.every((run) => run.length >= SHORTEST_LAST_PART_SECONDS) ? moved : undefined;
}

/**
 * The plan `missed` (its clip hears its peak at `heardPeak`, not at H), moved until its clip hears
 * its peak at H (trackedPeakSeconds), by at most MAX_SHIFT_SECONDS in SHIFT_ROUNDS tries; the
 * moved plan (its ending 'cut') when it lands, else undefined.
 */
export function shiftedLanding(analysis: Analysis, hit: number, missed: Anchored, heardPeak: number): Anchored | undefined {
  let runs = missed.choice.runs;
  let peak: number | undefined = heardPeak;
  let total = 0;
  for (let round = 0; round < SHIFT_ROUNDS && peak !== undefined; round++) {
    const shift = hit - peak;
    if (Math.abs(total + shift) > MAX_SHIFT_SECONDS) return undefined;
    const moved = shiftedRuns(runs, shift, analysis.durationSeconds);
    if (!moved) return undefined;
    total += shift;
    runs = moved;
    // The plan's anchor is the source time playing at H: its peak_in_clip_seconds is then where
    // the clip hears its peak, not where the old anchor was moved to (up to 0.4 s off H).
    const anchor = heardSourceSeconds(analysis, runs, hit);
    if (anchor === undefined) return undefined;
    peak = trackedPeakSeconds(analysis, runs, anchor);
    // Thin: only where its peak falls was checked (trackedPeakSeconds), not its margin (trackedLanding).
    if (peak !== undefined && Math.abs(peak - hit) <= LANDING_SECONDS) {
      return { choice: { ...missed.choice, runs, ending: 'cut' }, landing: 'thin', peakSeconds: anchor, heardSeconds: peak };
    }
  }
  return undefined;
}
