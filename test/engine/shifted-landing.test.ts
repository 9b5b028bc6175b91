// The last resort of an edit that no plan lands (engine/plan/shifted-landing.ts): a missed plan
// whose clip hears its peak a fraction of a beat off H is moved by that much, stays exactly D long,
// and its clip, analysed on its own, then has its peak at H; a miss by more than about half a beat
// is not moved (the clip would hear another beat), nor is a plan the move would take off the source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { shiftedLanding, shiftedRuns } from '../../engine/plan/shifted-landing.ts';
import { trackedPeakSeconds } from '../../engine/plan/peak-landing.ts';
import type { Anchored } from '../../engine/plan/anchored-edit.ts';
import { type Run, planOf } from '../../engine/plan/plan.ts';
import { climaxPiece, stereo } from '../support/synth.ts';
import { laidOut } from '../support/laid-out.ts';

const BPM = 120;
const TRACK_SECONDS = 80;
const CLIMAX_SECONDS = 40;
const DURATION = 20;
const HIT = 15;
/** How far off H the missed plan's clip hears its peak: under half a beat at 120 BPM (0.25 s). */
const MISS_SECONDS = 0.2;
const HIT_TOLERANCE_SECONDS = 0.025;
/** The plan's placement moves its anchor part onto the analysis's onset phases (< 2.9 ms), and rounds to 1 ms. */
const PLAN_PEAK_TOLERANCE_SECONDS = 0.0035;

const totalLength = (runs: Run[]) => runs.reduce((sum, run) => sum + run.length, 0);

test('a plan whose clip hears its peak 0.2 s before H is moved 0.2 s later and lands, exactly D long, its ending cut', () => {
  const source = stereo(climaxPiece(BPM, TRACK_SECONDS, CLIMAX_SECONDS));
  const analysis = analysePcm(source);
  // Two runs through the climax, placed so that it plays 0.2 s before H, off the source's beats.
  const start = analysis.peakSeconds - (HIT - MISS_SECONDS);
  const runs = [{ sourceStart: start, length: 12 }, { sourceStart: start + 12, length: DURATION - 12 }];
  // As an edit's missed plans are: anchored at H (the source time playing there), heard elsewhere.
  const missed: Anchored = { choice: { cost: 0, runs, ending: 'bar_line' }, landing: 'miss', peakSeconds: start + HIT };
  const heard = trackedPeakSeconds(analysis, runs, analysis.peakSeconds);
  assert.ok(heard !== undefined && Math.abs(heard - (HIT - MISS_SECONDS)) <= HIT_TOLERANCE_SECONDS, `the missed plan's clip hears its peak at ${heard}`);

  const moved = shiftedLanding(analysis, HIT, missed, heard);
  assert.ok(moved, 'a plan that lands');
  assert.equal(moved.choice.ending, 'cut');
  assert.ok(Math.abs(totalLength(moved.choice.runs) - DURATION) < 1e-9, 'exactly D long');
  assert.ok(Math.abs(moved.choice.runs[0].sourceStart - (start - MISS_SECONDS)) < 0.03, `starts at ${moved.choice.runs[0].sourceStart}`);
  // The plan says where the clip hears its climax: at H, not where the moved anchor plays.
  const plan = planOf({ mode: 'edit', durationSeconds: DURATION, hitPointSeconds: HIT }, moved.choice.runs, moved.peakSeconds, moved.choice.ending);
  assert.ok(plan.peakInClipSeconds !== null && Math.abs(plan.peakInClipSeconds - HIT) <= PLAN_PEAK_TOLERANCE_SECONDS, `peak_in_clip_seconds ${plan.peakInClipSeconds}`);
  const clipPeak = analysePcm(laidOut(source.channels, moved.choice.runs)).peakSeconds;
  assert.ok(Math.abs(clipPeak - HIT) <= HIT_TOLERANCE_SECONDS, `the moved clip's peak at ${clipPeak.toFixed(3)}, H ${HIT}`);

  // A miss by a whole second is another beat, not the same one heard off H: no move.
  assert.equal(shiftedLanding(analysis, HIT, missed, HIT - 1), undefined);
});

test('a move that would start before the source or leave a part too short is refused', () => {
  const runs = [{ sourceStart: 0.1, length: 10 }, { sourceStart: 30, length: 10 }];
  assert.equal(shiftedRuns(runs, 0.2, TRACK_SECONDS), undefined, 'before the source');
  const moved = shiftedRuns(runs, -0.2, TRACK_SECONDS)!;
  assert.deepEqual(moved.map((run) => [run.sourceStart, run.length].map((x) => Math.round(x * 1000) / 1000)), [[0.3, 9.8], [30, 10.2]]);
  assert.equal(shiftedRuns([{ sourceStart: 5, length: 10 }, { sourceStart: 30, length: 0.15 }], 0.1, TRACK_SECONDS), undefined, 'a last part under 0.1 s');
  assert.equal(shiftedRuns([{ sourceStart: 70, length: 10 }], -0.1, TRACK_SECONDS), undefined, 'past the track end');
});
