// The pass behind an edit's last resort (engine/plan/edit-plan.ts hitEdit: when no plan with an
// ending on a beat lands its peak at H, the same search with the clip cut mid-beat after the
// climax): anchoredEdit with cutEndings pairs only the run through the peak on to the clip's end,
// off a beat, and its plan still plays the climax at H, exactly D long. (No synthetic track was
// found on which every plan ending on a beat misses; the recordings' benches measure the resort.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { barGrid } from '../../engine/plan/bar-grid.ts';
import { cutEndingKinds, endingKinds } from '../../engine/plan/after-peak.ts';
import { anchoredEdit } from '../../engine/plan/anchored-edit.ts';
import { beatEndingForCut } from '../../engine/plan/cut-ending-repair.ts';
import { heardClip, withHeardClips } from '../../engine/plan/peak-landing.ts';
import { climaxPiece, stereo } from '../support/synth.ts';
import { laidOut } from '../support/laid-out.ts';

const BPM = 120;
const TRACK_SECONDS = 80;
/** The climax 40 s in, 24 s long: room before and after it for any H in a 20 s edit. */
const CLIMAX_SECONDS = 40;
const DURATION = 20;
/** H a quarter of a second off the beats, so the run on through the climax stops mid-beat. */
const HIT = 15.25;
/** The tolerance for the peak at H, and for a time on a beat. */
const HIT_TOLERANCE_SECONDS = 0.025;
const ON_BEAT_SECONDS = 0.02;

test('cut endings, the last resort: only endings off a beat are paired, and the clip still has its peak at H', () => {
  const source = stereo(climaxPiece(BPM, TRACK_SECONDS, CLIMAX_SECONDS));
  const analysis = analysePcm(source);
  assert.ok(Math.abs(analysis.peakSeconds - CLIMAX_SECONDS) < HIT_TOLERANCE_SECONDS, `peak ${analysis.peakSeconds}`);
  const grid = barGrid(analysis);
  const rest = DURATION - HIT;
  const cuts = cutEndingKinds(grid, rest);
  const only = cuts(0);
  assert.ok(only && only.length > 0, 'cut endings');
  assert.ok(only.every((choice) => choice.ending === 'cut'), `endings ${[...new Set(only.map((choice) => choice.ending))].join(', ')}`);
  assert.equal(cuts(1), undefined, 'one kind');
  assert.ok(endingKinds(grid, rest)(0)!.every((choice) => choice.ending !== 'cut'), 'the usual first kind ends on a beat');

  const found = anchoredEdit(grid, DURATION, HIT, { cutEndings: true });
  assert.ok(found && found.landing !== 'miss', `landing ${found?.landing}`);
  assert.equal(found.choice.ending, 'cut');
  const { runs } = found.choice;
  assert.ok(Math.abs(runs.reduce((sum, run) => sum + run.length, 0) - DURATION) < 1e-6, 'exactly D long');
  const last = runs[runs.length - 1];
  const end = last.sourceStart + last.length;
  const beats = Array.from(analysis.beatTimesSeconds);
  assert.ok(beats.every((beat) => Math.abs(beat - end) > ON_BEAT_SECONDS), `the clip ends at ${end.toFixed(3)} s of the source, on a beat`);
  const heard = analysePcm(laidOut(source.channels, runs)).peakSeconds;
  assert.ok(Math.abs(heard - HIT) <= HIT_TOLERANCE_SECONDS, `the clip's peak at ${heard.toFixed(3)}, H ${HIT}`);
});

test("a cut plan's own lead-in and climax, with an ending on a beat instead, lands its peak at H too", () => {
  const source = stereo(climaxPiece(BPM, TRACK_SECONDS, CLIMAX_SECONDS));
  const analysis = analysePcm(source);
  const grid = barGrid(analysis);
  const cut = anchoredEdit(grid, DURATION, HIT, { cutEndings: true });
  assert.ok(cut && cut.landing !== 'miss' && cut.choice.ending === 'cut');
  const repaired = beatEndingForCut(grid, DURATION, HIT, cut);
  assert.ok(repaired && repaired.landing !== 'miss', `landing ${repaired?.landing}`);
  assert.notEqual(repaired.choice.ending, 'cut');
  const { runs } = repaired.choice;
  assert.ok(Math.abs(runs.reduce((sum, run) => sum + run.length, 0) - DURATION) < 1e-6, 'exactly D long');
  const leadIn = cut.choice.runs.slice(0, -1);
  assert.deepEqual(runs.slice(0, leadIn.length), leadIn, "the cut plan's lead-in");
  assert.equal(runs[leadIn.length].sourceStart, cut.choice.runs[leadIn.length].sourceStart, 'the run through the peak starts where it did');
  const last = runs[runs.length - 1];
  const end = last.sourceStart + last.length;
  const beats = Array.from(analysis.beatTimesSeconds);
  assert.ok(repaired.choice.ending === 'track_end' || beats.some((beat) => Math.abs(beat - end) <= ON_BEAT_SECONDS), `the clip ends at ${end.toFixed(3)} s of the source, off a beat`);
  const heard = analysePcm(laidOut(source.channels, runs)).peakSeconds;
  assert.ok(Math.abs(heard - HIT) <= HIT_TOLERANCE_SECONDS, `the clip's peak at ${heard.toFixed(3)}, H ${HIT}`);
  // Once a clip of the edit has been heard, the plan made again keeps the cut (cut-ending-repair.ts).
  const heardElsewhere = heardClip(analysis, repaired.choice.runs, HIT, HIT + 2);
  assert.equal(withHeardClips([heardElsewhere], () => beatEndingForCut(grid, DURATION, HIT, cut)), undefined);
});
