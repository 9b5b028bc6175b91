// The spectrogram on synthetic signals against sums done directly in the time domain: the Hann
// window applied in the spectrum (three-bin kernel) gives the windowed frame's energy and keeps a
// tone's leakage to its own bands; each frame's RMS is its window's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FFT_SIZE, HOP_SIZE, spectrogram } from '../../engine/analysis/spectrogram.ts';

const RATE = 22_050;
/** A tone halfway between two bins: the worst case for leakage, which only a right window contains. */
const TONE_BIN = 100.5;
const AMPLITUDE = 0.5;
const ENERGY_TOLERANCE = 1e-3; // relative: single-precision transform, band values stored as float32
const LEAKAGE_LIMIT = 1e-6; // of the tone's energy, in bands more than 3 away from its own

function tone(bin: number, samples: number): Float32Array {
  return Float32Array.from({ length: samples }, (_, i) => AMPLITUDE * Math.sin((2 * Math.PI * bin * i) / FFT_SIZE + 0.3));
}

/** A band's energy from its stored value, log(1 + 1000 * energy / FFT_SIZE). */
const bandEnergy = (logBand: number) => (Math.expm1(logBand) * FFT_SIZE) / 1000;

test('a tone between two bins: the bands hold the windowed frame energy, and leak nothing far off', () => {
  const signal = tone(TONE_BIN, FFT_SIZE + 8 * HOP_SIZE);
  const spec = spectrogram(signal, RATE);
  for (let f = 0; f < spec.frames; f++) {
    const energies = Array.from(spec.logBands.subarray(f * spec.bands, (f + 1) * spec.bands), bandEnergy);
    // Parseval for a real frame far from DC and Nyquist: the one-sided power is N/2 times the
    // sum of the windowed samples' squares.
    let windowedSquares = 0;
    for (let i = 0; i < FFT_SIZE; i++) {
      const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FFT_SIZE);
      windowedSquares += (signal[f * HOP_SIZE + i] * w) ** 2;
    }
    const expected = (FFT_SIZE / 2) * windowedSquares;
    const total = energies.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(total - expected) <= ENERGY_TOLERANCE * expected, `frame ${f}: bands hold ${total}, the windowed frame ${expected}`);
    const loudest = energies.indexOf(Math.max(...energies));
    const far = energies.reduce((sum, e, k) => (Math.abs(k - loudest) > 3 ? sum + e : sum), 0);
    assert.ok(far <= LEAKAGE_LIMIT * total, `frame ${f}: ${far / total} of the energy leaks past 3 bands`);
  }
});

test("each frame's RMS is its window's, however the signal's loudness moves", () => {
  const signal = Float32Array.from({ length: FFT_SIZE + 20 * HOP_SIZE }, (_, i) => Math.sin(i * 0.37) * (i / 4000) ** 2);
  const spec = spectrogram(signal, RATE, false);
  assert.equal(spec.frames, 21);
  for (let f = 0; f < spec.frames; f++) {
    let squares = 0;
    for (let i = 0; i < FFT_SIZE; i++) squares += signal[f * HOP_SIZE + i] ** 2;
    const expected = Math.sqrt(squares / FFT_SIZE);
    assert.ok(Math.abs(spec.rms[f] - expected) <= 1e-6 * expected, `frame ${f}: ${spec.rms[f]} against ${expected}`);
  }
});

test('a signal shorter than one window is one frame, zero-padded', () => {
  const signal = tone(40, FFT_SIZE / 2);
  const spec = spectrogram(signal, RATE);
  assert.equal(spec.frames, 1);
  let squares = 0;
  for (const x of signal) squares += x * x;
  assert.ok(Math.abs(spec.rms[0] - Math.sqrt(squares / FFT_SIZE)) < 1e-6);
  assert.ok(spec.logBands.every(Number.isFinite));
});
