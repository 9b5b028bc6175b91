// A landing made surer (engine/plan/centred-landing.ts): a plan whose clip hears its peak within
// the 25 ms tolerance of H but more than a frame off it is moved by up to 15 ms, stays exactly D
// long, keeps its ending, and its clip, analysed on its own, then hears its peak nearer H; a plan
// heard within a frame of H is left as it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { centredLanding, centredRuns } from '../../engine/plan/centred-landing.ts';
import { trackedPeakSeconds } from '../../engine/plan/peak-landing.ts';
import type { Anchored } from '../../engine/plan/anchored-edit.ts';
import type { Run } from '../../engine/plan/plan.ts';
import { climaxPiece, stereo } from '../support/synth.ts';
import { laidOut } from '../support/laid-out.ts';

const BPM = 120;
const TRACK_SECONDS = 80;
const CLIMAX_SECONDS = 40;
const DURATION = 20;
const HIT = 15;
/** How far off H the plan's clip hears its peak: inside the 25 ms tolerance, but by more than a frame (11.6 ms). */
const OFF_SECONDS = 0.018;
/** The moved clip, analysed, hears its peak within a frame of H. */
const CENTRED_SECONDS = 0.012;

const totalLength = (runs: Run[]) => runs.reduce((sum, run) => sum + run.length, 0);

test('a plan whose clip hears its peak 18 ms before H is moved later, exactly D long, its ending kept, and heard nearer H', () => {
  const source = stereo(climaxPiece(BPM, TRACK_SECONDS, CLIMAX_SECONDS));
  const analysis = analysePcm(source);
  // Two runs through the climax, placed so that it plays 18 ms before H.
  const start = analysis.peakSeconds - (HIT - OFF_SECONDS);
  const runs = [{ sourceStart: start, length: 12 }, { sourceStart: start + 12, length: DURATION - 12 }];
  const heard = trackedPeakSeconds(analysis, runs, analysis.peakSeconds)!;
  const landed: Anchored = { choice: { cost: 0, runs, ending: 'bar_line' }, landing: 'thin', peakSeconds: analysis.peakSeconds, heardSeconds: heard };
  assert.ok(Math.abs(heard - HIT) > 0.012 && Math.abs(heard - HIT) <= 0.025, `the plan's clip hears its peak at ${heard.toFixed(4)}`);
  const before = analysePcm(laidOut(source.channels, runs)).peakSeconds;

  const centred = centredLanding(analysis, HIT, landed);
  assert.notEqual(centred, landed, 'the plan is moved');
  assert.equal(centred.choice.ending, 'bar_line');
  assert.ok(Math.abs(totalLength(centred.choice.runs) - DURATION) < 1e-9, 'exactly D long');
  assert.ok(centred.choice.runs[0].sourceStart < start, `a pickup: starts at ${centred.choice.runs[0].sourceStart}`);
  assert.ok(centred.heardSeconds !== undefined && Math.abs(centred.heardSeconds - HIT) < Math.abs(heard - HIT), `the check hears it at ${centred.heardSeconds}`);
  const after = analysePcm(laidOut(source.channels, centred.choice.runs)).peakSeconds;
  assert.ok(Math.abs(after - HIT) <= CENTRED_SECONDS && Math.abs(after - HIT) < Math.abs(before - HIT), `the moved clip's peak at ${after.toFixed(4)} (was ${before.toFixed(4)}), H ${HIT}`);

  // Heard within a frame of H: left as it is.
  const near: Anchored = { ...landed, heardSeconds: HIT + 0.005 };
  assert.equal(centredLanding(analysis, HIT, near), near);
});

test('a move towards an earlier peak at the track end starts the last run earlier; the last run cannot move a peak it plays', () => {
  const runs = [{ sourceStart: 10, length: 10 }, { sourceStart: 70, length: 10 }];
  // Content earlier: the first run starts later, and the last, which ends with the track, starts earlier.
  const moved = centredRuns(runs, -0.01, TRACK_SECONDS, 15)!;
  assert.deepEqual(moved.map((run) => [run.sourceStart, run.length].map((x) => Math.round(x * 1000) / 1000)), [[10.01, 9.99], [69.99, 10.01]]);
  assert.equal(centredRuns(runs, -0.01, TRACK_SECONDS, 75), undefined, 'the peak in the last run');
  // Content later: a pickup, and the end that much sooner.
  const later = centredRuns(runs, 0.01, TRACK_SECONDS, 15)!;
  assert.deepEqual(later.map((run) => [run.sourceStart, run.length].map((x) => Math.round(x * 1000) / 1000)), [[9.99, 10.01], [70, 9.99]]);
});
