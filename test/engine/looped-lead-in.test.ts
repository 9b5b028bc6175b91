// A late H on a track whose climax comes early and whose music stays loud after it: the quiet
// bars before the climax are too few for one run of them, so the lead-in loops them (an intro
// extended, engine/plan/lead-in.ts loopedLeadIns). Each looped lead-in plays only those quiet
// bars, joins on bar lines, fills the clip to H exactly, and the clip it makes, analysed on its
// own, has its peak at H.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { barAt, barGrid } from '../../engine/plan/bar-grid.ts';
import { leadInCandidates } from '../../engine/plan/lead-in.ts';
import { MIN_PART_SECONDS } from '../../engine/plan/edit-choice.ts';
import { climaxPiece, stereo } from '../support/synth.ts';
import { laidOut } from '../support/laid-out.ts';

const BPM = 120;
const TRACK_SECONDS = 80;
/** The climax 8 s in (4 bars of build before it), loud from there to the track's end. */
const CLIMAX_SECONDS = 8;
const DURATION = 60;
const HIT = 55;
/** The tolerance for the peak at H, and for a part boundary on a bar line. */
const HIT_TOLERANCE_SECONDS = 0.025;
const ON_LINE_SECONDS = 0.02;

test('an early climax, loud to the end, and a late H: the lead-in loops the quiet bars before the climax, and the peak lands at H', () => {
  const source = stereo(climaxPiece(BPM, TRACK_SECONDS, CLIMAX_SECONDS, TRACK_SECONDS - CLIMAX_SECONDS));
  const analysis = analysePcm(source);
  assert.ok(Math.abs(analysis.peakSeconds - CLIMAX_SECONDS) < HIT_TOLERANCE_SECONDS, `peak ${analysis.peakSeconds}`);
  const grid = barGrid(analysis);
  const peakBar = barAt(grid, analysis.peakSeconds);
  const leadIns = leadInCandidates(grid, HIT);
  assert.ok(leadIns.looped.length > 0, 'looped lead-ins');
  const onLine = (t: number) => Math.abs(grid.lines[barAt(grid, t + ON_LINE_SECONDS)] - t) < ON_LINE_SECONDS;
  for (const leadIn of leadIns.looped) {
    const [first, ...loop] = leadIn.runs;
    assert.ok(loop.length >= 1, `${leadIn.runs.length} runs`);
    assert.ok(loop.every((run) => run.sourceStart === leadIn.peakRunStart && run.length === loop[0].length), 'the loop repeats one span, from where the run through the peak starts');
    for (const run of leadIn.runs) {
      assert.ok(run.sourceStart + run.length <= grid.lines[peakBar] + ON_LINE_SECONDS, `a run plays up to ${run.sourceStart + run.length}, past the climax's bar line`);
      assert.ok(onLine(run.sourceStart + run.length), `a run leaves at ${run.sourceStart + run.length}, off the bar lines`);
    }
    assert.ok(onLine(leadIn.peakRunStart) && loop.every((run) => onLine(run.sourceStart)), 'the loop starts on a bar line');
    const beforePeak = leadIn.runs.reduce((sum, run) => sum + run.length, 0) + analysis.peakSeconds - leadIn.peakRunStart;
    assert.ok(Math.abs(beforePeak - HIT) < 1e-6, `the peak plays at ${beforePeak}, not H`);
    assert.ok(first.length >= MIN_PART_SECONDS, `a first run of ${first.length} s`);
    // Quiet bars only: each bar the lead-in plays is quieter than the climax's bar.
    for (const run of leadIn.runs) {
      for (let b = barAt(grid, run.sourceStart + ON_LINE_SECONDS); b < barAt(grid, run.sourceStart + run.length - ON_LINE_SECONDS) + 1; b++) {
        assert.ok(grid.barRms[b] < grid.barRms[peakBar], `bar ${b} (${grid.barRms[b].toFixed(3)}) is as loud as the climax's (${grid.barRms[peakBar].toFixed(3)})`);
      }
    }
  }
  const [cheapest] = leadIns.looped;
  const runs = [...cheapest.runs, { sourceStart: cheapest.peakRunStart, length: analysis.peakSeconds - cheapest.peakRunStart + DURATION - HIT }];
  const clip = analysePcm(laidOut(source.channels, runs));
  assert.ok(Math.abs(clip.peakSeconds - HIT) <= HIT_TOLERANCE_SECONDS, `the clip's own peak at ${clip.peakSeconds.toFixed(3)}, not ${HIT}`);
});
