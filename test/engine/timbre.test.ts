// Timbre statistics on synthetic signals: a low hum and a bright hiss have unlike spectral
// shapes; the same kind of sound at another pitch, tempo or loudness has a like one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { TIMBRE_GROUPS } from '../../engine/analysis/timbre.ts';
import { drumPattern } from '../support/synth.ts';
import { decodeMp3, mp3Of } from '../support/audio.ts';

const RATE = 44_100;

function tone(hz: number, seconds: number, level = 0.3): Float32Array {
  return Float32Array.from({ length: seconds * RATE }, (_, i) => level * Math.sin((2 * Math.PI * hz * i) / RATE));
}

function hiss(seconds: number, level = 0.2, seed = 5): Float32Array {
  let s = seed;
  let previous = 0;
  // White noise through a first difference: energy rising with frequency.
  return Float32Array.from({ length: seconds * RATE }, () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const white = (s / 2 ** 31) * 2 - 1;
    const out = level * (white - previous);
    previous = white;
    return out;
  });
}

const shapeOf = async (signal: Float32Array) => analysePcm(await decodeMp3(await mp3Of(signal))).timbre!;
const cosine = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i], 0);

test('timbre: unit-length spectral shapes that tell a hum from a hiss and ignore loudness and tempo', async () => {
  const hum = await shapeOf(tone(80, 12));
  const hum2 = await shapeOf(tone(100, 12, 0.05));
  const bright = await shapeOf(hiss(12));
  const bright2 = await shapeOf(hiss(12, 0.05, 9));
  const drums = await shapeOf(drumPattern(100, 12));
  const drums2 = await shapeOf(drumPattern(140, 12, 0.5, 3, 0.3));
  for (const shape of [hum, bright, drums]) {
    assert.equal(shape.length, TIMBRE_GROUPS);
    assert.ok(Math.abs(Math.hypot(...shape) - 1) < 0.01);
  }
  assert.ok(cosine(hum, hum2) > 0.8, `hum ${cosine(hum, hum2)}`);
  assert.ok(cosine(bright, bright2) > 0.9, `hiss ${cosine(bright, bright2)}`);
  assert.ok(cosine(drums, drums2) > 0.8, `drums ${cosine(drums, drums2)}`);
  assert.ok(cosine(hum, bright) < 0.3, `hum vs hiss ${cosine(hum, bright)}`);
  assert.ok(cosine(drums, drums2) > cosine(drums, bright) && cosine(drums, drums2) > cosine(drums, hum));
});
