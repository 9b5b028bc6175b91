// Tempo and beats on click and drum tracks of known tempo (60-180 BPM): tempo within 2% (octave
// errors fail), beat F-measure (+-70 ms) at least 0.9. Measured through real MP3 bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { autocorrelation, tempoPeriodFrames } from '../../engine/analysis/tempo.ts';
import { beatScores, beatScoresAt, MAX_GAP_PERIODS, TIGHTNESS } from '../../engine/analysis/beats.ts';
import { localPeriods } from '../../engine/analysis/tempo-track.ts';
import { longShortShift } from '../../engine/analysis/long-short.ts';
import { clickTrack, drumPattern, beatTimes, stereo, swungPushes } from '../support/synth.ts';
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

/**
 * The dynamic programme as written down (Ellis 2007): every gap of half a period to two periods
 * tried at every frame, the best positive one taken, ties to the earliest predecessor.
 */
function beatScoresByEveryGap(local: Float64Array, periodFrames: number): { score: Float64Array; back: Int32Array } {
  const score = new Float64Array(local.length);
  const back = new Int32Array(local.length).fill(-1);
  const minGap = Math.max(1, Math.round(periodFrames / 2));
  const maxGap = Math.round(periodFrames * MAX_GAP_PERIODS);
  for (let t = 0; t < local.length; t++) {
    let best = -Infinity;
    let from = -1;
    for (let s = t - maxGap; s <= t - minGap; s++) {
      if (s < 0) continue;
      const value = score[s] - TIGHTNESS * Math.log((t - s) / periodFrames) ** 2;
      if (value > best) [best, from] = [value, s];
    }
    score[t] = best > 0 ? local[t] + best : local[t];
    back[t] = best > 0 ? from : -1;
  }
  return { score, back };
}

test('the beat programme\'s queue of predecessors gives the same scores and predecessors as trying every gap', () => {
  // Onsets of every kind the programme meets: random, sparse, periodic with noise, flat, silent.
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const kinds: Record<string, (i: number, period: number) => number> = {
    random: () => random(),
    sparse: () => (random() < 0.05 ? random() : 0),
    periodic: (i, period) => (i % Math.round(period) === 0 ? 1 : 0.2 * random()),
    flat: () => 0.5,
    silent: () => 0,
  };
  for (const [kind, value] of Object.entries(kinds)) {
    // 0.2: no gap at all (each frame stands alone); 0.6: a single gap; 90.5: 40 frames all before the first gap.
    for (const periodFrames of [0.2, 0.6, 1.7, 5, 23.4, 43.07, 62.3, 90.5]) {
      for (const frames of [0, 40, 700, 2600]) {
        const local = Float64Array.from({ length: frames }, (_, i) => value(i, periodFrames));
        const expected = beatScoresByEveryGap(local, periodFrames);
        const { score, back } = beatScores(local, periodFrames);
        assert.deepEqual([...back], [...expected.back], `${kind}, period ${periodFrames}, ${frames} frames: predecessors`);
        assert.deepEqual([...score], [...expected.score], `${kind}, period ${periodFrames}, ${frames} frames: scores`);
      }
    }
  }
});

test('the programme with a period per frame, one period everywhere, is the programme as written down', () => {
  let seed = 3;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (const periodFrames of [1.7, 23.4, 43.07, 62.3]) {
    const local = Float64Array.from({ length: 2600 }, (_, i) => (i % Math.round(periodFrames) === 0 ? 1 : 0.3 * random()));
    const everywhere = new Float32Array(local.length).fill(periodFrames);
    const expected = beatScoresByEveryGap(local, Math.fround(periodFrames));
    const { score, back } = beatScoresAt(local, { shortest: everywhere, longest: everywhere });
    assert.deepEqual([...back], [...expected.back], `period ${periodFrames}: predecessors`);
    for (let t = 0; t < score.length; t++) assert.ok(Math.abs(score[t] - expected.score[t]) <= 1e-9 * Math.max(1, expected.score[t]), `period ${periodFrames}, frame ${t}: score`);
  }
});

/** Drum patterns at the tempos of `parts` ([BPM, seconds] each), one after another, and their beats. */
function tempoChanges(parts: [number, number][]): { signal: Float32Array; truth: number[] } {
  const signal = new Float32Array(parts.reduce((sum, [, seconds]) => sum + seconds, 0) * 44100);
  const truth: number[] = [];
  let start = 0;
  for (const [k, [bpm, seconds]] of parts.entries()) {
    const leadIn = k === 0 ? 0.5 : 0;
    signal.set(drumPattern(bpm, seconds, leadIn, 7 + k), start * 44100);
    truth.push(...beatTimes(bpm, seconds, leadIn).map((t) => start + t));
    start += seconds;
  }
  return { signal, truth };
}

test('drum patterns that change tempo part-way are tracked through the changes; a steady one has no tempo track', async () => {
  // One change, from the piece's tempo; two, into a passage at another tempo and back.
  for (const parts of [[[125, 60], [94, 60]], [[100, 40], [120, 60], [100, 40]]] as [number, number][][]) {
    const { signal, truth } = tempoChanges(parts);
    const analysis = analysePcm(await decodeMp3(await mp3Of(signal)));
    const f = beatFMeasure(analysis.beatTimesSeconds, truth);
    assert.ok(f >= 0.9, `${parts.map(([bpm, seconds]) => `${seconds} s at ${bpm} BPM`).join(', ')}: beat F-measure ${f.toFixed(3)}`);
  }
  const steady = analysePcm(stereo(drumPattern(125, 120)));
  assert.equal(localPeriods(steady.onset, steady.frameRate, tempoPeriodFrames(steady.onset, steady.frameRate)), undefined);
});

test('a swung groove whose chords are pushed onto the louder "and" is tracked on its beats, not on the "and"', async () => {
  const seconds = 40;
  for (const bpm of [80, 105, 130]) {
    const analysis = analysePcm(await decodeMp3(await mp3Of(swungPushes(bpm, seconds))));
    const f = beatFMeasure(analysis.beatTimesSeconds, beatTimes(bpm, seconds));
    assert.ok(f >= 0.9, `${bpm} BPM: beat F-measure ${f.toFixed(3)}`);
  }
});

/** A beat profile of 24 steps with accents of the given strengths at the given steps (each spread one step either side). */
function profileWith(accents: [number, number][]): Float64Array {
  const profile = new Float64Array(24);
  for (const [step, strength] of accents) for (const [d, share] of [[-1, 0.5], [0, 1], [1, 0.5]]) profile[(step + d + 24) % 24] = Math.max(profile[(step + d + 24) % 24], strength * share);
  return profile;
}

test('beats move to begin the long interval only where the beat has two accents, unevenly spaced', () => {
  // Tracked on the swung "and" (step 0), the beat a third of a beat later (step 8): long after it, short before.
  assert.equal(longShortShift(profileWith([[0, 1], [8, 0.7]])), 8 / 24);
  // Tracked a sixteenth before the beat (an anticipation): the beat is a quarter of a beat on.
  assert.equal(longShortShift(profileWith([[0, 1], [6, 0.6]])), 6 / 24);
  // Tracked on the beat of a swung groove whose "and" is the louder: stays.
  assert.equal(longShortShift(profileWith([[0, 0.8], [16, 1]])), 0);
  // Straight eighths, sixteenths, and a second accent too weak to be one: nothing to read.
  assert.equal(longShortShift(profileWith([[0, 0.8], [12, 1]])), 0);
  assert.equal(longShortShift(profileWith([[0, 1], [6, 0.6], [12, 0.8], [18, 0.6]])), 0);
  assert.equal(longShortShift(profileWith([[0, 1], [8, 0.3]])), 0);
});

test('downbeats fall on the accented first beat of each bar', async () => {
  const bpm = 120;
  const analysis = analysePcm(await decodeMp3(await mp3Of(drumPattern(bpm, SECONDS))));
  const bars = beatTimes(bpm, SECONDS).filter((_, i) => i % 4 === 0);
  assert.ok(beatFMeasure(analysis.barTimesSeconds, bars) >= 0.9, `bars at ${Array.from(analysis.barTimesSeconds.slice(0, 4))}`);
});

test('beats across a silent break are evenly spaced between the heard beats around it', async () => {
  const bpm = 83;
  const signal = clickTrack(bpm, 40);
  const [gapFrom, gapTo] = [12, 24]; // 16 beats of silence
  signal.fill(0, Math.round(gapFrom * 44100), Math.round(gapTo * 44100));
  const analysis = analysePcm(await decodeMp3(await mp3Of(signal)));
  const truth = beatTimes(bpm, 40);
  const inGap = Array.from(analysis.beatTimesSeconds).filter((t) => t > gapFrom + 0.2 && t < gapTo - 0.2);
  assert.ok(inGap.length >= 12, `${inGap.length} beats in the break`);
  const offGrid = (t: number) => Math.min(...truth.map((b) => Math.abs(b - t)));
  const worst = Math.max(...inGap.map(offGrid));
  const heardWorst = Math.max(...Array.from(analysis.beatTimesSeconds).filter((t) => t < gapFrom || t > gapTo).map(offGrid));
  // Placed by the spacing penalty alone they drifted 52 ms off the grid across this break; evenly
  // spaced, they are as near it as the heard beats are, give or take a frame (11.6 ms).
  assert.ok(worst <= heardWorst + 0.012, `a beat in the break ${(worst * 1000).toFixed(1)} ms off the grid (heard beats: ${(heardWorst * 1000).toFixed(1)} ms)`);
});

test('the autocorrelation\'s lags sharing a pass give each lag\'s sum of products, added in order, to the bit', () => {
  let seed = 11;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  // Lengths and lag counts around a pass's 4 lags: fewer values than a pass's lags, lags left over.
  for (const length of [1, 2, 3, 4, 5, 9, 700]) {
    for (const maxLag of [0, 1, 2, 3, 4, 6, 7, 522]) {
      if (maxLag > length - 1) continue;
      // Peaky values, as onsets are: rounding differs with the order of the sums.
      const values = Float32Array.from({ length }, () => (random() < 0.2 ? 3 * random() : 0.01 * random()));
      const expected = Array.from({ length: maxLag + 1 }, (_, lag) => {
        let sum = 0;
        for (let i = lag; i < length; i++) sum += values[i] * values[i - lag];
        return sum / (length - lag);
      });
      assert.deepEqual([...autocorrelation(values, maxLag)], expected, `${length} values, lags 0..${maxLag}`);
    }
  }
});

test('the beat period is read at the autocorrelation peak of the lag that scores best, not frames past it', () => {
  // Clicks every 53 frames, their autocorrelation bent so that it still rises past 53 (a sparse
  // piece's bumpy plateau): 53 scores best by its two-beat and bar peaks, 54 has no such
  // support. The parabola through 52-54 has its vertex 1.8 frames out; the beat is 53.
  const frameRate = 22050 / 256;
  const onset = new Float32Array(2580); // 30 s
  for (let f = 10; f < onset.length; f += 53) onset[f] = 1;
  const bentAcf = (values: Float32Array, maxLag: number) => {
    const acf = autocorrelation(values, maxLag);
    acf[52] = 0.86 * acf[53];
    acf[54] = 1.08 * acf[53];
    return acf;
  };
  const periodFrames = tempoPeriodFrames(onset, frameRate, bentAcf);
  assert.ok(Math.abs(periodFrames - 53) <= 0.5, `period ${periodFrames.toFixed(2)} frames`);
});
