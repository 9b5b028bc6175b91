// Tempo and beats on click and drum tracks of known tempo (60-180 BPM): tempo within 2% (octave
// errors fail), beat F-measure (+-70 ms) at least 0.9. Measured through real MP3 bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { clickTrack, drumPattern, beatTimes } from '../support/synth.ts';
import { beatFMeasure, decodeMp3, mp3Of } from '../support/audio.ts';

const TEMPI = [60, 75, 90, 105, 120, 128, 140, 155, 170, 180];
const SECONDS = 30;

for (const [kind, render] of [['click track', clickTrack], ['drum pattern', drumPattern]] as const) {
  test(`${kind}: tempo within 2% and beat F-measure >= 0.9 at ${TEMPI.join(', ')} BPM`, async () => {
    for (const bpm of TEMPI) {
      const analysis = analysePcm(await decodeMp3(await mp3Of(render(bpm, SECONDS))));
      const error = Math.abs(analysis.tempoBpm - bpm) / bpm;
      assert.ok(error <= 0.02, `${kind} at ${bpm} BPM: estimated ${analysis.tempoBpm}`);
      const f = beatFMeasure(analysis.beatTimesSeconds, beatTimes(bpm, SECONDS));
      assert.ok(f >= 0.9, `${kind} at ${bpm} BPM: beat F-measure ${f.toFixed(3)}`);
    }
  });
}

test('downbeats fall on the accented first beat of each bar', async () => {
  const bpm = 120;
  const analysis = analysePcm(await decodeMp3(await mp3Of(drumPattern(bpm, SECONDS))));
  const bars = beatTimes(bpm, SECONDS).filter((_, i) => i % 4 === 0);
  assert.ok(beatFMeasure(analysis.barTimesSeconds, bars) >= 0.9, `bars at ${Array.from(analysis.barTimesSeconds.slice(0, 4))}`);
});
