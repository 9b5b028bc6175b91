// A clip whose peak is its last source beat but one period before its end (H in the clip's last
// second or so, the ending a fragment of a beat) is heard with one more beat after the peak: the
// clip's beat tracking ends its beats within the clip's last beat period. The screen on the
// source's own beats (peak-landing.ts sourceBeatLanding) counts that beat too, so it agrees with
// the tracked check and with the clip's own analysis: the peak lands at H. Without that beat the
// screen passed the peak over as the clip's last beat, and every plan with H that late missed there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { firstAtOrAfter } from '../../engine/analysis/beats.ts';
import { sourceBeatLanding, trackedLanding } from '../../engine/plan/peak-landing.ts';
import { climaxPiece, stereo } from '../support/synth.ts';
import { laidOut } from '../support/laid-out.ts';

const BPM = 120;
const TRACK_SECONDS = 80;
const CLIMAX_SECONDS = 40;
/** Where the peak plays in the clip: less than two beats before its end. */
const HIT = 18.9;
/** The tolerance for the peak at H. */
const HIT_TOLERANCE_SECONDS = 0.025;
/** The fragment that ends the clip: shorter than a beat, starting a tenth of a beat after one. */
const FRAGMENT_BEATS = 0.8;
const FRAGMENT_OFFSET_BEATS = 0.1;

test('a clip ending a beat and a fragment after its peak: the source-beat screen lands it at H, as the tracked check and the clip\'s own analysis do', () => {
  const source = stereo(climaxPiece(BPM, TRACK_SECONDS, CLIMAX_SECONDS));
  const analysis = analysePcm(source);
  const beats = analysis.beatTimesSeconds;
  const peakBeat = firstAtOrAfter(beats, analysis.peakSeconds - 1e-3);
  assert.ok(Math.abs(beats[peakBeat] - CLIMAX_SECONDS) < HIT_TOLERANCE_SECONDS, `peak ${analysis.peakSeconds}`);
  const beat = beats[peakBeat + 1] - beats[peakBeat];
  // From H before the peak to the beat after it (that beat not played), then a fragment of a
  // later beat with no beat of its own: the clip goes on 1.8 beats after its peak.
  const runs = [
    { sourceStart: analysis.peakSeconds - HIT, length: HIT + beats[peakBeat + 1] - analysis.peakSeconds },
    { sourceStart: beats[peakBeat + 4] + FRAGMENT_OFFSET_BEATS * beat, length: FRAGMENT_BEATS * beat },
  ];
  const heard = analysePcm(laidOut(source.channels, runs)).peakSeconds;
  assert.ok(Math.abs(heard - HIT) <= HIT_TOLERANCE_SECONDS, `the clip's own analysis hears its peak at ${heard.toFixed(3)}, H ${HIT}`);
  assert.notEqual(trackedLanding(analysis, runs, HIT).landing, 'miss');
  assert.notEqual(sourceBeatLanding(analysis, runs, HIT), 'miss');
});
