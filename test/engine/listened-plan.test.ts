// A thin edit heard before it is sent (engine/listened-plan.ts): a plan whose clip was heard off H
// is judged by what was heard (peak-landing.ts withHeardClips), so the edit takes another; only
// for that one call. A plan the check lands surely is not heard. The rhythm steps alone find the
// analysis's own peak (analyse.ts peakSecondsOfPcm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm, peakSecondsOfPcm } from '../../engine/analysis/analyse.ts';
import { planClip } from '../../engine/plan/plan-clip.ts';
import { listenedPlan } from '../../engine/listened-plan.ts';
import { heardClip } from '../../engine/plan/peak-landing.ts';
import type { ClipPlan, ClipRequest } from '../../engine/plan/plan.ts';
import { climaxPiece, stereo } from '../support/synth.ts';

const BPM = 120;
const TRACK_SECONDS = 80;
const CLIMAX_SECONDS = 40;
const REQUEST: ClipRequest = { mode: 'edit', durationSeconds: 20, hitPointSeconds: 15 };
/** Further apart than this in some run's start or length (seconds), two plans play different material (peak-landing.ts HEARD_RUNS_TOLERANCE_SECONDS). */
const SAME_RUNS_SECONDS = 0.02;

const source = stereo(climaxPiece(BPM, TRACK_SECONDS, CLIMAX_SECONDS));
const analysis = analysePcm(source);

function playsTheSame(a: ClipPlan, b: ClipPlan): boolean {
  const [x, y] = [a.runs, b.runs];
  return x.length === y.length && x.every((run, i) => Math.abs(run.sourceStart - y[i].sourceStart) <= SAME_RUNS_SECONDS && Math.abs(run.length - y[i].length) <= SAME_RUNS_SECONDS);
}

test('the rhythm steps alone put the peak where the whole analysis does', () => {
  assert.equal(peakSecondsOfPcm(source), analysis.peakSeconds);
});

test('a plan whose clip was heard 2 s off H is not made again: the edit plays other material, and only in that call', () => {
  const first = planClip(analysis, REQUEST);
  assert.notEqual(first.hitPointLanding, 'miss', 'the plan lands by its check');
  const heardOff = [heardClip(analysis, first.runs, REQUEST.hitPointSeconds!, REQUEST.hitPointSeconds! + 2)];
  const next = planClip(analysis, REQUEST, heardOff);
  assert.ok(!playsTheSame(next, first), `another plan: ${JSON.stringify(next.runs)} against ${JSON.stringify(first.runs)}`);
  assert.equal(next.samples, first.samples, 'exactly D long');
  assert.deepEqual(planClip(analysis, REQUEST), first, 'without what was heard, the first plan again');
});

test('a sure edit, a segment and a loop are not heard before they are sent', async () => {
  const noAudio = async (): Promise<never> => assert.fail('the clip was heard');
  for (const request of [REQUEST, { mode: 'segment', durationSeconds: 20 }, { mode: 'loop', durationSeconds: 20 }] as ClipRequest[]) {
    const plan = planClip(analysis, request);
    if (request.mode === 'edit') assert.equal(plan.hitPointLanding, 'sure');
    assert.deepEqual(await listenedPlan(analysis, request, noAudio), plan);
  }
});
