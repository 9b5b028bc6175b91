// The spectrogram on synthetic signals against sums done directly in the time domain: the Hann
// window applied in the spectrum (three-bin kernel) gives the windowed frame's energy and keeps a
// tone's leakage to its own bands; each frame's RMS is its window's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spectrogram } from '../../engine/analysis/spectrogram.ts';
import { FFT_SIZE, HOP_SIZE } from '../../engine/analysis/frames.ts';

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
  const spec = spectrogram(signal, RATE);
  assert.equal(spec.frames, 21);
  for (let f = 0; f < spec.frames; f++) {
    let squares = 0;
    for (let i = 0; i < FFT_SIZE; i++) squares += signal[f * HOP_SIZE + i] ** 2;
    const expected = Math.sqrt(squares / FFT_SIZE);
    assert.ok(Math.abs(spec.rms[f] - expected) <= 1e-6 * expected, `frame ${f}: ${spec.rms[f]} against ${expected}`);
  }
});

test('a signal shorter than one window is one frame, as if zero-padded, whatever was transformed before', () => {
  spectrogram(tone(200, 4 * FFT_SIZE), RATE); // leaves its last frame in the transform's input
  const signal = tone(40, FFT_SIZE / 2);
  const padded = new Float32Array(FFT_SIZE);
  padded.set(signal);
  const short = spectrogram(signal, RATE);
  const reference = spectrogram(padded, RATE);
  assert.equal(short.frames, 1);
  assert.deepEqual(short.logBands, reference.logBands);
  assert.deepEqual(short.rms, reference.rms);
});

/** Seeded white noise plus a tone: energy in every band. */
function noise(samples: number, seed: number): Float32Array {
  let s = seed;
  return Float32Array.from({ length: samples }, (_, i) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return 0.2 * ((s / 2 ** 31) * 2 - 1) + 0.3 * Math.sin(i * 0.05);
  });
}

/**
 * The bands and chroma of frame `f` as the spectrogram defines them, summed directly: the frame
 * windowed in time (periodic Hann), a float64 DFT of every bin, each bin's band by its frequency
 * (48 bands evenly spaced in log frequency, 30 Hz to 8 kHz or Nyquist), its pitch class (40 Hz to 2 kHz).
 */
function directFrame(signal: Float32Array, f: number, rate: number): { logBands: number[]; chroma: number[] } {
  const energy = new Array<number>(48).fill(0);
  const chroma = new Array<number>(12).fill(0);
  const frame = Array.from({ length: FFT_SIZE }, (_, i) => (signal[f * HOP_SIZE + i] ?? 0) * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FFT_SIZE)));
  const highHz = Math.min(8000, rate / 2);
  for (let b = 0; b <= FFT_SIZE / 2; b++) {
    let re = 0;
    let im = 0;
    for (let i = 0; i < FFT_SIZE; i++) {
      const angle = (2 * Math.PI * ((b * i) % FFT_SIZE)) / FFT_SIZE;
      re += frame[i] * Math.cos(angle);
      im -= frame[i] * Math.sin(angle);
    }
    const hz = (b * rate) / FFT_SIZE;
    if (hz >= 30 && hz < highHz) energy[Math.min(47, Math.floor(((Math.log(hz) - Math.log(30)) / (Math.log(highHz) - Math.log(30))) * 48))] += re * re + im * im;
    if (hz >= 40 && hz <= 2000) chroma[(((Math.round(12 * Math.log2(hz / 440)) + 9) % 12) + 12) % 12] += Math.hypot(re, im);
  }
  return { logBands: energy.map((e) => Math.log1p((1000 * e) / FFT_SIZE)), chroma };
}

for (const rate of [22_050, 16_000, 11_025]) {
  test(`every band and pitch class equals the direct sums over its bins at ${rate} Hz`, () => {
    const signal = noise(FFT_SIZE + 4 * HOP_SIZE, rate);
    const spec = spectrogram(signal, rate);
    for (const f of [0, 2, 4]) {
      const direct = directFrame(signal, f, rate);
      direct.logBands.forEach((expected, k) => {
        const got = spec.logBands[f * spec.bands + k];
        assert.ok(Math.abs(got - expected) <= 1e-4 * Math.max(1, expected), `frame ${f} band ${k}: ${got} against ${expected}`);
      });
      direct.chroma.forEach((expected, pitch) => {
        const got = spec.chromaFrames[f * 12 + pitch];
        assert.ok(Math.abs(got - expected) <= 1e-4 * expected + 1e-6, `frame ${f} pitch class ${pitch}: ${got} against ${expected}`);
      });
    }
  });
}
