// Integrated loudness (BS.1770-4 / EBU R128) against EBU Tech 3341's synthetic cases, gating
// cases whose answers follow from the block arithmetic, and ffmpeg's ebur128 filter when ffmpeg
// is on PATH; waveform peaks.
import { test } from 'node:test';
import { skipUnless } from '../support/requirements.ts';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { integratedLoudnessLufs, shelfFilter } from '../../engine/analysis/loudness.ts';
import { waveformPeaks, WAVEFORM_POINTS_PER_SECOND } from '../../engine/analysis/waveform.ts';
import { climaxPiece, drumPattern, RATE } from '../support/synth.ts';

const TOLERANCE_LU = 0.1;

/** A 1 kHz sine whose peak is `dbfs` (Tech 3341's levels: a full-scale sine is 0 dBFS). */
function sine(dbfs: number, seconds: number, sampleRate: number, hz = 1000): Float32Array {
  const out = new Float32Array(Math.round(seconds * sampleRate));
  const amplitude = 10 ** (dbfs / 20);
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * hz * i) / sampleRate);
  return out;
}

function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) out.set(part, at), (at += part.length);
  return out;
}

/** The same signal in both channels, as Tech 3341's stereo test signals are. */
function stereoOf(mono: Float32Array): Float32Array[] {
  return [mono, mono.slice()];
}

/** Sine segments of [dbfs, seconds], stereo. */
function sineSequence(sampleRate: number, ...segments: [number, number][]): Float32Array[] {
  return stereoOf(concat(...segments.map(([dbfs, seconds]) => sine(dbfs, seconds, sampleRate))));
}

// 22.05 kHz: 100 ms steps of an odd number of samples.
for (const sampleRate of [44100, 48000, 22050]) {
  test(`Tech 3341 cases 1-5 at ${sampleRate} Hz`, () => {
    const cases: [string, [number, number][], number][] = [
      ['1: -23 dBFS, 20 s', [[-23, 20]], -23],
      ['2: -33 dBFS, 20 s', [[-33, 20]], -33],
      ['3: -36/-23/-36 (relative gate)', [[-36, 10], [-23, 60], [-36, 10]], -23],
      ['4: -72/-36/-23/-36/-72 (both gates)', [[-72, 10], [-36, 10], [-23, 60], [-36, 10], [-72, 10]], -23],
      ['5: -26/-20/-26', [[-26, 20], [-20, 20.1], [-26, 20]], -23],
    ];
    for (const [name, segments, expected] of cases) {
      const measured = integratedLoudnessLufs(sineSequence(sampleRate, ...segments), sampleRate);
      assert.ok(Math.abs(measured - expected) <= TOLERANCE_LU, `case ${name}: ${measured.toFixed(3)} LUFS, expected ${expected}`);
    }
  });

  test(`gating arithmetic at ${sampleRate} Hz`, () => {
    // Levels are relative to what a steady -20 dBFS sine measures (the K-weighting's gain at
    // 1 kHz is 0.69 dB only to about 0.02 dB, by rate): what is left is the blocks' arithmetic.
    const reference = integratedLoudnessLufs(sineSequence(sampleRate, [-20, 10]), sampleRate);
    const energy = (dbfs: number) => 10 ** ((dbfs + 20) / 10);
    const expect = (name: string, measured: number, expected: number) =>
      assert.ok(Math.abs(measured - expected) < 0.01, `${name}: ${measured.toFixed(4)} vs ${expected.toFixed(4)}`);
    // 20 s below the absolute gate, then 10 s at -20: the 97 blocks inside the loud part and the
    // 3 that straddle the step (1/4, 2/4, 3/4 of it loud; the rest adds ~nothing) count.
    expect('-75 then -20', integratedLoudnessLufs(sineSequence(sampleRate, [-75, 20], [-20, 10]), sampleRate),
      reference + 10 * Math.log10((97 + 0.25 + 0.5 + 0.75) / 100));
    // -20 then -28 (10 s each): the relative gate (-22.4 - 10) keeps every block, and the
    // straddling blocks average to the mean, so the answer is the energy mean of the two levels.
    expect('-20 then -28', integratedLoudnessLufs(sineSequence(sampleRate, [-20, 10], [-28, 10]), sampleRate),
      reference + 10 * Math.log10((energy(-20) + energy(-28)) / 2));
    // -20 then -40 (10 s each): -40 is above the absolute gate but below the relative one; the
    // straddling blocks are 3/4, 2/4 and 1/4 loud, and all above the relative gate.
    const straddling = [0.75, 0.5, 0.25].reduce((sum, loud) => sum + loud + (1 - loud) * energy(-40), 0);
    expect('-20 then -40', integratedLoudnessLufs(sineSequence(sampleRate, [-20, 10], [-40, 10]), sampleRate),
      reference + 10 * Math.log10((97 + straddling) / 100));
  });
}

test('the K-weighting coefficients at 48 kHz are BS.1770-4 table 1', () => {
  const [b0, b1, b2, a1, a2] = shelfFilter(48000);
  const table = [1.53512485958697, -2.69169618940638, 1.19839281085285, -1.69065929318241, 0.73248077421585];
  [b0, b1, b2, a1, a2].forEach((value, i) => assert.ok(Math.abs(value - table[i]) < 1e-9, `coefficient ${i}: ${value} vs ${table[i]}`));
});

test('silence and signals shorter than one block have no loudness (-Infinity)', () => {
  assert.equal(integratedLoudnessLufs(stereoOf(new Float32Array(RATE * 5)), RATE), -Infinity);
  assert.equal(integratedLoudnessLufs(sineSequence(RATE, [-80, 5]), RATE), -Infinity);
  assert.equal(integratedLoudnessLufs(sineSequence(RATE, [-20, 0.3]), RATE), -Infinity);
  assert.equal(integratedLoudnessLufs([], RATE), -Infinity);
});

test('mono counts one channel: 3 dB below the same signal in both channels', () => {
  const mono = sine(-23, 10, RATE);
  assert.ok(Math.abs(integratedLoudnessLufs([mono], RATE) - (-23 - 10 * Math.log10(2))) < 0.05);
});

test('waveform peaks: the largest |sample| of both channels per point, 0..1', () => {
  const seconds = 3.03;
  const left = sine(-6, seconds, RATE, 441);
  const right = new Float32Array(left.length);
  right[Math.round(1.51 * RATE)] = -1.3; // a decoder's overshoot, in the right channel only
  const peaks = waveformPeaks([left, right], RATE);
  assert.equal(peaks.length, Math.ceil(seconds * WAVEFORM_POINTS_PER_SECOND));
  const overshootPoint = Math.floor(1.51 * WAVEFORM_POINTS_PER_SECOND);
  peaks.forEach((peak, p) => {
    const expected = p === overshootPoint ? 1 : 10 ** (-6 / 20);
    assert.ok(Math.abs(peak - expected) < 1e-3, `point ${p}: ${peak} vs ${expected}`);
  });
  assert.equal(waveformPeaks([new Float32Array(0)], RATE).length, 0);
});

// ---- ffmpeg's ebur128 on the same samples (32-bit float WAV, so both read identical input) ----

const ffmpegFound = spawnSync('ffmpeg', ['-version'], { stdio: 'ignore' }).status === 0;

function floatWav(channels: Float32Array[], sampleRate: number): Buffer {
  const frames = channels[0].length;
  const dataBytes = frames * channels.length * 4;
  const out = Buffer.alloc(44 + dataBytes);
  out.write('RIFF', 0);
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVEfmt ', 8);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(3, 20); // IEEE float
  out.writeUInt16LE(channels.length, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * channels.length * 4, 28);
  out.writeUInt16LE(channels.length * 4, 32);
  out.writeUInt16LE(32, 34);
  out.write('data', 36);
  out.writeUInt32LE(dataBytes, 40);
  for (let i = 0, at = 44; i < frames; i++) for (const channel of channels) out.writeFloatLE(channel[i], at), (at += 4);
  return out;
}

/** ffmpeg's integrated loudness: the last `lavfi.r128.I` it reports (3 decimals; its summary has 1). */
function ffmpegIntegratedLufs(file: string): number {
  const run = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-i', file, '-af', 'ebur128=metadata=1,ametadata=print:key=lavfi.r128.I:file=-', '-f', 'null', '-'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const values = [...run.stdout.matchAll(/lavfi\.r128\.I=(-?[\d.]+)/g)].map((m) => Number(m[1]));
  const summary = Number(/Integrated loudness:\s+I:\s+(-?[\d.]+) LUFS/.exec(run.stderr)![1]);
  const last = values[values.length - 1];
  assert.ok(Math.abs(last - summary) <= 0.05, `ffmpeg's last reading ${last} vs its summary ${summary}`);
  return last;
}

/** Deterministic white noise, uniform in [-gain, gain]. */
function noise(seconds: number, sampleRate: number, gain: number, seed: number): Float32Array {
  let state = seed;
  const out = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < out.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = gain * ((state / 4294967296) * 2 - 1);
  }
  return out;
}

test('agrees with ffmpeg ebur128 within 0.1 LU', { skip: skipUnless(ffmpegFound, 'ffmpeg (apt-get install ffmpeg)') }, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-loudness-'));
  try {
    const drums = drumPattern(100, 30);
    const piece = climaxPiece(120, 60, 30);
    const signals: [string, Float32Array[], number][] = [
      ['drum pattern, right channel at 0.5', [drums, drums.map((x) => 0.5 * x)], RATE],
      ['climax piece (quiet intro, loud climax)', stereoOf(piece), RATE],
      ['Tech 3341 case 5', sineSequence(RATE, [-26, 20], [-20, 20.1], [-26, 20]), RATE],
      ['noise with a 10 s pause at 48 kHz', [concat(noise(8, 48000, 0.3, 1), new Float32Array(480000), noise(8, 48000, 0.05, 2)), noise(26, 48000, 0.2, 3)], 48000],
      ['a 60 Hz hum, then a quiet 6 kHz tone, at 32 kHz', [concat(sine(-12, 12, 32000, 60), sine(-30, 8, 32000, 6000)), sine(-18, 20, 32000, 60)], 32000],
    ];
    for (const [name, channels, sampleRate] of signals) {
      const file = path.join(dir, 'signal.wav');
      fs.writeFileSync(file, floatWav(channels, sampleRate));
      const ours = integratedLoudnessLufs(channels, sampleRate);
      const theirs = ffmpegIntegratedLufs(file);
      t.diagnostic(`${name}: ours ${ours.toFixed(3)} LUFS, ffmpeg ${theirs.toFixed(3)} LUFS, difference ${(ours - theirs).toFixed(3)} LU`);
      assert.ok(Math.abs(ours - theirs) <= TOLERANCE_LU, `${name}: ours ${ours}, ffmpeg ${theirs}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
