// An edit's last resort cuts the clip mid-beat: the climax runs on to the clip's end because no
// plan ending on a beat lands its peak at H (edit-plan.ts hitEdit). The searches before it pair
// many lead-ins with many endings under one budget of checks, so the lead-in that lands with the
// cut may never have been tried with an ending on a beat. This tries exactly that: the cut plan's
// own lead-in and climax, with each ending on a beat in order of preference.
import type { BarGrid } from './bar-grid.ts';
import type { Choice } from './edit-choice.ts';
import { endingKinds } from './after-peak.ts';
import { anchoredAt } from './anchor-with-room.ts';
import { type Anchored, assurance, unchecked, widePairs } from './anchored-edit.ts';
import { clipsHeard, landsAtOtherPhases, trackedLanding } from './peak-landing.ts';

/** Endings on a beat checked with a cut plan's lead-in (each beat-tracked, ~1 ms): a bound on the resort's time. */
const BEAT_ENDING_CHECKS = 16;

/**
 * The cut plan `cut` with its ending replaced by the first ending on a beat (its kinds in order of
 * preference, each kind cheapest first) whose clip lands its peak at H at least as surely as the
 * cut's; undefined when none of the first BEAT_ENDING_CHECKS does. Tried on an edit's first plan
 * only: once a clip of the edit has been heard off H (listened-plan.ts), the plans made knowing it
 * keep the cut, so that it is heard before the edit's few listened plans run out (wesnoth's
 * heroes_rite, D 60, H 37.96: its bar-line ending heard the peak 2.8 s early, the cut at H).
 * Tried on later plans too, it lost a landing: heroes_rite D 45, H 39.2, whose second plan's
 * repair was heard off H where its cut, repaired nowhere, had been heard at it.
 */
export function beatEndingForCut(grid: BarGrid, duration: number, hit: number, cut: Anchored): Anchored | undefined {
  if (clipsHeard()) return undefined;
  const { runs } = cut.choice;
  const leadIn = { cost: 0, runs: runs.slice(0, -1), peakRunStart: runs[runs.length - 1].sourceStart };
  const anchor = anchoredAt(grid.analysis, cut.peakSeconds);
  const candidates = widePairs([leadIn], endingKinds({ ...grid, analysis: anchor }, duration - hit));
  // A kind with joins relaxed holds the strict kind's endings again: unchecked takes each once.
  for (const choice of unchecked(onBeat(candidates), undefined, new Set(), BEAT_ENDING_CHECKS)) {
    const { landing, seconds } = trackedLanding(anchor, choice.runs, hit);
    if (landing === 'miss') continue;
    const steady = landing === 'thin' && landsAtOtherPhases(anchor, choice.runs, hit);
    const repaired: Anchored = { choice, landing, peakSeconds: cut.peakSeconds, heardSeconds: seconds, steady };
    if (assurance(repaired) >= assurance(cut)) return repaired;
  }
  return undefined;
}

/** Of `choices`, those whose clip ends on a beat (or at the track's end). */
function* onBeat(choices: Iterable<Choice>): Generator<Choice> {
  for (const choice of choices) if (choice.ending !== 'cut') yield choice;
}
