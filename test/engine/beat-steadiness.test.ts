// The share of beat periods around a bar line that stray from the track's beat period
// (engine/plan/beat-steadiness.ts), on beat lists whose periods are known.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unsteadyShare } from '../../engine/plan/beat-steadiness.ts';

const FRAME_RATE = 86.13;
const PERIOD_SECONDS = 0.64;

/** 40 beats 0.64 s apart, with the beat periods from `squeezedFrom` (count `squeezed`) 0.59 s long and the periods after them making up the difference. */
function beatsWithSqueeze(squeezedFrom: number, squeezed: number): Float32Array {
  const times: number[] = [0];
  for (let i = 1; i < 40; i++) {
    const inSqueeze = i > squeezedFrom && i <= squeezedFrom + squeezed;
    const makingUp = i > squeezedFrom + squeezed && i <= squeezedFrom + 2 * squeezed;
    times.push(times[i - 1] + (inSqueeze ? 0.59 : makingUp ? 0.69 : PERIOD_SECONDS));
  }
  return Float32Array.from(times);
}

test('a steady grid has no unsteady periods around any of its beats, one frame of rounding included', () => {
  const jittered = Float32Array.from({ length: 40 }, (_, i) => i * PERIOD_SECONDS + ((i % 3) - 1) / FRAME_RATE);
  for (let i = 0; i < 40; i += 4) assert.equal(unsteadyShare(jittered, PERIOD_SECONDS, FRAME_RATE, jittered[i]), 0, `beat ${i}`);
});

test('around a stretch whose periods are 8% short the share rises, and far from it it stays 0', () => {
  const beats = beatsWithSqueeze(20, 3);
  assert.ok(unsteadyShare(beats, PERIOD_SECONDS, FRAME_RATE, beats[22]) >= 0.75, `inside the squeeze: ${unsteadyShare(beats, PERIOD_SECONDS, FRAME_RATE, beats[22])}`);
  assert.equal(unsteadyShare(beats, PERIOD_SECONDS, FRAME_RATE, beats[8]), 0);
  assert.equal(unsteadyShare(beats, PERIOD_SECONDS, FRAME_RATE, beats[36]), 0);
});
