// Tempo and beats on click and drum tracks of known tempo (60-180 BPM): tempo within 2% (octave
// errors fail), beat F-measure (+-70 ms) at least 0.9. Measured through real MP3 bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm, analysisSignal } from '../../engine/analysis/analyse.ts';
import { autocorrelation, autocorrelationByFft, tempoEstimate, tempoPeriodFrames } from '../../engine/analysis/tempo.ts';
import { LEVEL_TIE_MARGIN, PHASE_TIE_RATIO, TEMPO_TIE_RATIO } from '../../engine/plan/peak-landing.ts';
import { beatFrames, beatFramesAndRival, beatScores, MAX_GAP_PERIODS, phaseRivalAt, TIGHTNESS } from '../../engine/analysis/beats.ts';
import { spectrogram } from '../../engine/analysis/spectrogram.ts';
import { onsetStrength } from '../../engine/analysis/onset.ts';
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
      // Four lengths, as many as the working arrays kept: each length reuses its arrays, so a frame left unwritten would show.
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

/** How far the FFT's autocorrelation may be from the direct sums, as a share of the lag-0 value. */
const FFT_ACF_TOLERANCE = 1e-6;

test('the autocorrelation by FFT (the clip check\'s) equals the direct sums, and reads the same tempo', async () => {
  const onsetLike = (seconds: number) => {
    const mono = clickTrack(105, seconds);
    // A sparse, peaky envelope at the analysis's frame rate: the click track's |samples| per 256.
    return Float32Array.from({ length: Math.floor(mono.length / 256) }, (_, f) => Math.abs(mono[f * 256]) + (f % 7 === 0 ? 0.3 : 0));
  };
  for (const seconds of [5, 20, 60]) {
    const values = onsetLike(seconds);
    const maxLag = Math.min(520, values.length - 1);
    const direct = autocorrelation(values, maxLag);
    const byFft = autocorrelationByFft(values, maxLag);
    assert.equal(byFft.length, direct.length);
    // Single precision (PFFFT): the demo songs' clip envelopes came within 1.8e-7 of the lag-0 value.
    for (let lag = 0; lag <= maxLag; lag++) assert.ok(Math.abs(byFft[lag] - direct[lag]) <= FFT_ACF_TOLERANCE * direct[0], `${seconds} s, lag ${lag}: ${byFft[lag]} vs ${direct[lag]}`);
  }
  const pcm = await decodeMp3(await mp3Of(drumPattern(140, SECONDS)));
  const { mono, sampleRate } = analysisSignal(pcm);
  const spec = spectrogram(mono, sampleRate);
  const onset = onsetStrength(spec.logBands, spec.bands, spec.frames);
  const period = tempoPeriodFrames(onset, spec.frameRate);
  assert.ok(Math.abs(tempoPeriodFrames(onset, spec.frameRate, autocorrelationByFft) - period) < 0.01, 'same beat period');
});

/** The clip check's tempo estimate (by FFT) of a signal's onset envelope, as the analysis keeps it, through real MP3 bytes. */
async function clipTempo(signal: Float32Array) {
  const { onset, frameRate } = analysePcm(await decodeMp3(await mp3Of(signal)));
  return tempoEstimate(onset, frameRate, autocorrelationByFft);
}

test('another tempo reading ties only where the music holds two (the plan\'s tempo tie)', async () => {
  // One pulse: the next best reading (half or double speed, 3x the period) is well behind.
  for (const bpm of [60, 90, 120, 140]) {
    for (const [kind, render] of [['click track', clickTrack], ['drum pattern', drumPattern]] as const) {
      const { rivalRatio } = await clipTempo(render(bpm, SECONDS));
      assert.ok(rivalRatio < 0.85, `${kind} at ${bpm} BPM: rival ${rivalRatio.toFixed(3)}`);
    }
  }
  // Two click streams at 2:3 and 3:4 at once: either is the beat.
  const mixed = (a: number, b: number, bLevel: number) => {
    const [x, y] = [clickTrack(a, SECONDS), clickTrack(b, SECONDS)];
    return Float32Array.from(x, (v, i) => 0.5 * (v + bLevel * y[i]));
  };
  for (const [a, b, bLevel] of [[100, 150, 1], [90, 120, 0.7]]) {
    const { rivalRatio } = await clipTempo(mixed(a, b, bLevel));
    assert.ok(rivalRatio >= TEMPO_TIE_RATIO, `${a} and ${b} BPM clicks: rival ${rivalRatio.toFixed(3)}`);
  }
  // Clicks at 150 BPM, every other one at half the level: 150 or 75, a coin toss.
  const beatSamples = (60 / 150) * 44100;
  const strongWeak = Float32Array.from(clickTrack(150, SECONDS), (v, i) => (Math.floor((i - 0.5 * 44100 + beatSamples / 2) / beatSamples) % 2 === 1 ? 0.5 * v : v));
  const { rivalRatio } = await clipTempo(strongWeak);
  assert.ok(rivalRatio >= TEMPO_TIE_RATIO, `strong and weak clicks at 150 BPM: rival ${rivalRatio.toFixed(3)}`);
});

test('another period of the same pulse ties only where the onsets hold it as strongly (the plan\'s period tie)', () => {
  // Pulse streams every 35 and every 37 frames (a beat of 148 and 140 BPM, as a performance drifting
  // between them): at equal strength either lag is the beat, at 0.6 of it the slower is no rival.
  const frameRate = 22050 / 256;
  const streams = (slowerLevel: number) => {
    const onset = new Float32Array(1722); // 20 s
    for (let f = 10; f < onset.length; f += 35) onset[f] += 1;
    for (let f = 10; f < onset.length; f += 37) onset[f] += slowerLevel;
    return tempoEstimate(onset, frameRate, autocorrelationByFft);
  };
  const tied = streams(1);
  assert.ok(Math.abs(tied.periodFrames - 35) < 0.5 && tied.periodTies.some((tie) => Math.abs(tie - 37) < 0.5), `equal streams: ${tied.periodFrames} and ties ${tied.periodTies}`);
  assert.deepEqual(streams(0.6).periodTies, [], 'a weaker slower stream');
  assert.deepEqual(streams(0).periodTies, [], 'one stream');
});

test('the beat period is read at the autocorrelation peak of the lag that scores best, not frames past it', () => {
  // Clicks every 53 frames, their autocorrelation bent so that it still rises past 53 (a sparse
  // piece's bumpy plateau): 53 scores best by its two-beat and bar peaks, 54 has no such
  // support. The parabola through 52-54 has its vertex 1.8 frames out; the beat is 53.
  const frameRate = 22050 / 256;
  const onset = new Float32Array(2580); // 30 s
  for (let f = 10; f < onset.length; f += 53) onset[f] = 1;
  const bentAcf = (values: Float32Array, maxLag: number) => {
    const acf = autocorrelationByFft(values, maxLag);
    acf[52] = 0.86 * acf[53];
    acf[54] = 1.08 * acf[53];
    return acf;
  };
  const { periodFrames } = tempoEstimate(onset, frameRate, bentAcf);
  assert.ok(Math.abs(periodFrames - 53) <= 0.5, `period ${periodFrames.toFixed(2)} frames`);
});

test('the metrical level ties only where the off-beats sit at the threshold of halving the period (the plan\'s level tie)', () => {
  // Pulses at 86 BPM (60 frames) with off-beats at `level` of them, nothing else: the faster pulse
  // (172 BPM) is clean, so the beat halves exactly when the off-beats reach 0.8 of the beats.
  const period = 60;
  const frames = 2590;
  const frameRate = 22050 / 256;
  const withOffBeats = (level: number) => {
    const onset = new Float32Array(frames);
    for (let f = 10; f < frames; f += period) {
      onset[f] = 1;
      if (f + period / 2 < frames) onset[f + period / 2] = level;
    }
    return tempoEstimate(onset, frameRate, autocorrelationByFft);
  };
  const bpm = (periodFrames: number) => (60 * frameRate) / periodFrames;
  for (const [level, expectedBpm, tied] of [[0.5, 86, false], [0.78, 86, true], [0.82, 172, true], [0.9, 172, false]] as const) {
    const { periodFrames, levelMargin } = withOffBeats(level);
    assert.ok(Math.abs(bpm(periodFrames) / expectedBpm - 1) < 0.02, `off-beats at ${level}: ${bpm(periodFrames).toFixed(1)} BPM`);
    assert.equal(levelMargin < LEVEL_TIE_MARGIN, tied, `off-beats at ${level}: level margin ${levelMargin.toFixed(3)}`);
    assert.ok(Math.abs(levelMargin - Math.abs(level - 0.8)) < 0.01, `off-beats at ${level}: the margin is their distance from 0.8 (${levelMargin.toFixed(3)})`);
  }
});

// 120 BPM at the analysis's ~86 frames/s: a pulse every 43 frames, 30 s, ending on an off-beat
// (so both phases hold 60 pulses: a chain a beat shorter than the other ties at 59/60 at most).
const PULSE_PERIOD = 43;
const PULSE_FRAMES = 2590;

/** An onset envelope of pulses every PULSE_PERIOD frames from frame 10, and off-beats between them at `offBeatLevel`. */
function pulses(offBeatLevel: number): Float32Array {
  const onset = new Float32Array(PULSE_FRAMES);
  for (let f = 10; f < PULSE_FRAMES; f += PULSE_PERIOD) {
    onset[f] = 1;
    if (f + PULSE_PERIOD / 2 < PULSE_FRAMES) onset[Math.round(f + PULSE_PERIOD / 2)] = offBeatLevel;
  }
  return onset;
}

test('a chain of beats in the other phase ties where the onsets hold both phases, and joins the beats where they do not (the plan\'s phase tie)', () => {
  const period = PULSE_PERIOD;
  const offFromPulses = (beats: Int32Array) => Math.max(...Array.from(beats, (b) => Math.abs(((b - 10 + period / 2) % period) - period / 2)));
  // Only the pulses: nothing scores in the other phase, so the best chain ending there joins the
  // beats at once (every beat but its last on a pulse), and the plan's rule sees no other peak.
  const clear = beatFramesAndRival(pulses(0), period);
  assert.ok(offFromPulses(clear.beats) <= 1, 'pulses alone: the beats are on them');
  assert.deepEqual(clear.beats, beatFrames(pulses(0), period), 'the same beats as beatFrames');
  assert.ok(offFromPulses(clear.rival.subarray(0, -1)) <= 1, 'pulses alone: the rival chain joins the beats');
  // Off-beats as strong as the beats: either phase is the beat, and the rival is the other one.
  const tied = beatFramesAndRival(pulses(1), period);
  assert.ok(tied.rivalRatio >= PHASE_TIE_RATIO, `off-beats as strong: rival ${tied.rivalRatio.toFixed(3)}`);
  const rivalOff = Array.from(tied.rival, (b) => Math.abs(((b - 10) % period) - period / 2));
  const beatsOnPulses = offFromPulses(tied.beats) <= 1;
  const rivalOnOffBeats = rivalOff.filter((d) => d <= 1).length >= 0.9 * rivalOff.length;
  assert.ok(beatsOnPulses ? rivalOnOffBeats : offFromPulses(tied.rival) <= 1, 'off-beats as strong: the rival chain takes the other phase');
});

test('a chain in the other phase all through ties at a beat in the middle only where the off-beats are as strong (the plan\'s phase tie at the peak)', () => {
  const tieAtMiddle = (offBeatLevel: number) => {
    const { beats, chains } = beatFramesAndRival(pulses(offBeatLevel), PULSE_PERIOD);
    return phaseRivalAt(chains, PULSE_PERIOD, beats[beats.length >> 1]);
  };
  const [none, weaker, strong] = [0, 0.97, 1].map(tieAtMiddle);
  // No off-beats: a chain through the other phase at one beat pays two off-grid gaps for nothing
  // (measured 0.85); off-beats at 0.97 of the beats: that chain scores 0.97 of the beats' (a
  // clear enough win); as strong: a tie.
  assert.ok(none < 0.9, `no off-beats: ${none.toFixed(3)}`);
  assert.ok(weaker < PHASE_TIE_RATIO, `off-beats at 0.97: ${weaker.toFixed(3)}`);
  assert.ok(strong >= PHASE_TIE_RATIO, `off-beats as strong: ${strong.toFixed(3)}`);
});

test('off-beats as strong in the first half alone tie at no beat (a chain cannot switch phase for free), and the envelope reversed gives the same share at the same beat', () => {
  const onset = pulses(1);
  for (let f = PULSE_FRAMES >> 1; f < PULSE_FRAMES; f++) if (Math.abs(((f - 10) % PULSE_PERIOD) - PULSE_PERIOD / 2) <= 1) onset[f] = 0;
  const { beats, chains } = beatFramesAndRival(onset, PULSE_PERIOD);
  // An early beat: up to it either phase scores alike (a forward score alone would call it a tie);
  // after it only one phase holds, and a chain that switches pays the spacing penalty twice.
  const early = beats[beats.length >> 3];
  const share = phaseRivalAt(chains, PULSE_PERIOD, early);
  assert.ok(share < PHASE_TIE_RATIO, `early beat ${early}: ${share.toFixed(3)}`);
  const reversed = onset.slice().reverse();
  const backwards = beatFramesAndRival(reversed, PULSE_PERIOD);
  const mirrored = PULSE_FRAMES - 1 - early;
  assert.ok(backwards.beats.includes(mirrored), `the reversed envelope's beats hold frame ${mirrored}`);
  assert.ok(Math.abs(phaseRivalAt(backwards.chains, PULSE_PERIOD, mirrored) - share) < 1e-9, 'the same share reversed');
});
