// A plan's peak check lays out its runs as the clip will play them (engine/plan/plan.ts
// playedRuns): the parts planOf makes, in seconds. Joins come half a crossfade early and every
// part sits on the frame phase of the part that plays the peak, which keeps its place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLAN_SAMPLE_RATE, SEAM_CROSSFADE_MS, planOf, playedRuns } from '../../engine/plan/plan.ts';
import { MPEG1_FRAME_SAMPLES } from '../../engine/mp3/frame-header.ts';

/** One sample, in seconds: what rounding to samples may move a time by. */
const SAMPLE_SECONDS = 1 / PLAN_SAMPLE_RATE;

const runs = [{ sourceStart: 40.0123, length: 7.0811 }, { sourceStart: 57.2267, length: 16.9271 }, { sourceStart: 68.1754, length: 5.9918 }];
const duration = runs.reduce((sum, run) => sum + run.length, 0);
const peakSeconds = 65.701;
const hit = runs[0].length + (peakSeconds - runs[1].sourceStart);

test('the runs laid out are the parts the clip plays', () => {
  const plan = planOf({ mode: 'edit', durationSeconds: duration, hitPointSeconds: hit }, runs, peakSeconds, 'track_end');
  const played = playedRuns(runs, hit, peakSeconds);
  assert.equal(played.length, plan.parts.length);
  played.forEach((run, i) => {
    assert.ok(Math.abs(run.sourceStart * PLAN_SAMPLE_RATE - plan.parts[i].sourceStart) < 1e-6, `part ${i} source start`);
    assert.ok(Math.abs(run.length * PLAN_SAMPLE_RATE - plan.parts[i].length) < 1e-6, `part ${i} length`);
  });
});

test('the part that plays the peak keeps it at H; the others move to its frame phase, joins early', () => {
  const played = playedRuns(runs, hit, peakSeconds);
  const clipStarts = played.map((_, i) => played.slice(0, i).reduce((sum, run) => sum + run.length, 0));
  // The peak plays at H, to the sample.
  assert.ok(Math.abs(clipStarts[1] + peakSeconds - played[1].sourceStart - hit) <= SAMPLE_SECONDS);
  // Every part's offset (source start - clip start) on one phase of the MP3 frame grid.
  const phases = played.map((run, i) => Math.round((run.sourceStart - clipStarts[i]) * PLAN_SAMPLE_RATE) % MPEG1_FRAME_SAMPLES);
  assert.ok(phases.every((phase) => (phase - phases[1]) % MPEG1_FRAME_SAMPLES === 0), `phases ${phases}`);
  // Each join half a crossfade before its run's bar line, give or take the half frame the phase may move it.
  const halfFrameSeconds = MPEG1_FRAME_SAMPLES / 2 / PLAN_SAMPLE_RATE;
  for (let i = 1; i < runs.length; i++) {
    const planned = runs.slice(0, i).reduce((sum, run) => sum + run.length, 0);
    const early = planned - clipStarts[i];
    assert.ok(early >= SEAM_CROSSFADE_MS / 2000 - halfFrameSeconds && early <= SEAM_CROSSFADE_MS / 2000 + halfFrameSeconds, `join ${i}: ${early} s early`);
  }
  assert.ok(Math.abs(played.reduce((sum, run) => sum + run.length, 0) - Math.round(duration * PLAN_SAMPLE_RATE) / PLAN_SAMPLE_RATE) < 1e-9);
});
