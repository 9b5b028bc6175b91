// The onsets and RMS a plan's check lays out (engine/plan/phased-layout.ts) are those the clip's own
// analysis sees: the plan's parts cut from the source and joined, then analysed, give the same
// envelopes frame for frame, except near a join (the analysis window straddles it, and the local
// mean reaches across it) and at the clip's first and last frames. Parts are placed as an edit with a hit
// point places them (plan.ts placedParts), at offsets from every one of the four onset phases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { FFT_SIZE, HOP_SIZE, framesOfSeconds } from '../../engine/analysis/frames.ts';
import { clipLevels } from '../../engine/plan/clip-levels.ts';
import { PLAN_SAMPLE_RATE, type PlanPart, placedParts, planOf } from '../../engine/plan/plan.ts';
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';
import { indexFrames } from '../../engine/mp3/frame-index.ts';
import { decodeAll, openRangeDecoder } from '../../engine/mp3/decode.ts';
import { renderPlanPcm } from '../../engine/render-plan.ts';
import { phasedLevels, phasedOnset } from '../../engine/plan/phased-layout.ts';
import { climaxPiece, stereo } from '../support/synth.ts';

/** Frames either side of a join whose onset depends on both parts: the window (FFT_SIZE / HOP_SIZE hops) and the local mean's radius (onset.ts). */
const JOIN_FRAMES = FFT_SIZE / HOP_SIZE + 1 + 16 + 1;
/** Frames either side of a join searched for its onset (the windows that cross it). */
const JOIN_SEARCH_FRAMES = 3;
/** The check's onset at a join against the clip's own (band levels pooled and stored as bytes, the mix modelled). */
const JOIN_ONSET_TOLERANCE = 0.35;
/** Float32 rounding between two runs of the same arithmetic. */
const ONSET_TOLERANCE = 1e-6;
/** Relative difference allowed between a sum of squared RMS frames from running sums and a direct sum. */
const SUM_TOLERANCE = 1e-6;

/** The parts' source samples played one after another (hard cuts, no crossfade; silence outside the source, as render-plan.ts). */
function cut(source: Float32Array, parts: PlanPart[], samples: number): Float32Array {
  const out = new Float32Array(samples);
  for (const p of parts) {
    const from = Math.max(0, p.sourceStart);
    out.set(source.subarray(from, Math.min(source.length, p.sourceStart + p.length)), p.clipStart + from - p.sourceStart);
  }
  return out;
}

test('the laid-out onsets and RMS are the clip\'s own, frame for frame, at every phase a part can play', () => {
  const source = climaxPiece(123, 70, 40);
  const analysis = analysePcm(stereo(source));
  const hop = PLAN_SAMPLE_RATE / analysis.frameRate;
  const phasesSeen = new Set<number>();
  // Lead-ins and endings whose offsets against the peak's part differ by several MP3 frames: parts at all four phases.
  const layouts = [
    [{ sourceStart: 3.1, length: 7.3 }, { sourceStart: 37.02, length: 9.11 }, { sourceStart: 55.5, length: 13.59 }],
    [{ sourceStart: 0, length: 5.55 }, { sourceStart: 20.013, length: 4.4 }, { sourceStart: 38.7, length: 20.05 }],
    [{ sourceStart: 36.123, length: 30 }],
  ];
  for (const runs of layouts) {
    const durationSeconds = runs.reduce((n, r) => n + r.length, 0);
    const parts = placedParts({ mode: 'edit', durationSeconds, hitPointSeconds: 1 }, runs, analysis.peakSeconds);
    for (const p of parts) phasesSeen.add((((p.sourceStart - p.clipStart) % hop) + hop) % hop);
    const samples = Math.round(durationSeconds * PLAN_SAMPLE_RATE);
    const clip = analysePcm(stereo(cut(source, parts, samples)));
    const laid = phasedOnset(analysis, parts, clip.onset.length);
    const levels = phasedLevels(analysis, parts, clip.rms.length);
    // The clip's start is an edge like a join: its first frame has no frame before it.
    const joinFrames = parts.map((p) => p.clipStart / hop);
    let compared = 0;
    for (let f = 0; f < clip.onset.length - JOIN_FRAMES; f++) {
      if (joinFrames.some((j) => Math.abs(f - j) < JOIN_FRAMES)) continue;
      assert.ok(Math.abs(laid[f] - clip.onset[f]) <= ONSET_TOLERANCE, `${JSON.stringify(runs)}: frame ${f}: laid out ${laid[f]}, the clip's ${clip.onset[f]}`);
      const level = levels.sumOfSquares(f, f + 1), own = clip.rms[f] ** 2;
      assert.ok(Math.abs(level - own) <= SUM_TOLERANCE * Math.max(own, 1e-6), `${JSON.stringify(runs)}: frame ${f}: level ${level}, the clip's ${own}`);
      compared++;
    }
    assert.ok(compared > clip.onset.length / 2, `${compared} frames compared of ${clip.onset.length}`);
  }
  assert.deepEqual([...phasesSeen].sort((a, b) => a - b), [0, 128, 256, 384], 'parts at every onset phase');
});

test('a clip laid out for the check has as many frames as its own analysis: none reads the source past the clip\'s end', () => {
  const source = climaxPiece(123, 70, 40);
  const analysis = analysePcm(stereo(source));
  for (const durationSeconds of [20, 29.987, 45.00002, 60.5]) {
    const runs = [{ sourceStart: 3.1, length: durationSeconds / 2 }, { sourceStart: 30, length: durationSeconds / 2 }];
    const samples = Math.round(durationSeconds * PLAN_SAMPLE_RATE);
    const own = analysePcm(stereo(source.subarray(0, samples)));
    assert.equal(framesOfSeconds(durationSeconds, analysis.frameRate), own.rms.length, `${durationSeconds} s`);
    assert.equal(clipLevels(analysis.rms, runs, analysis.frameRate).frames, own.rms.length, `${durationSeconds} s, the source-beat screen's levels`);
  }
});

test('a join\'s onset: the check hears the quiet part give way to the loud one, where the source itself has no onset', async () => {
  // 5 s of a soft low tone, 1 s of silence, then 8 s of a loud chord: steady after its attack at 6 s.
  const rate = PLAN_SAMPLE_RATE;
  const source = new Float32Array(14 * rate);
  for (let i = 0; i < 5 * rate; i++) source[i] = 0.03 * Math.sin((2 * Math.PI * 110 * i) / rate);
  for (let i = 6 * rate; i < source.length; i++) for (const hz of [330, 880, 1760, 3520]) source[i] += 0.15 * Math.sin((2 * Math.PI * hz * i) / rate);
  const mp3 = await encodeGaplessMp3(source, source);
  const index = indexFrames(mp3);
  const analysis = analysePcm(await decodeAll(mp3, index));
  // The soft tone from 1 s, then the chord from 9 s on, well after its own attack.
  const runs = [{ sourceStart: 1, length: 3 }, { sourceStart: 9, length: 3 }];
  const plan = planOf({ mode: 'edit', durationSeconds: 6, hitPointSeconds: 3 }, runs, 9.5, 'bar_line');
  const decoder = await openRangeDecoder();
  const [left, right] = await renderPlanPcm({ bytes: mp3, index, decoder }, plan);
  decoder.close();
  const clip = analysePcm({ sampleRate: rate, channels: [left, right] });
  const laid = phasedOnset(analysis, plan.parts, clip.onset.length);
  const hop = PLAN_SAMPLE_RATE / analysis.frameRate;
  const join = Math.round(plan.parts[1].clipStart / hop);
  const around = (envelope: ArrayLike<number>, centre: number) => Math.max(...Array.from({ length: 2 * JOIN_SEARCH_FRAMES + 1 }, (_, k) => envelope[centre - JOIN_SEARCH_FRAMES + k] ?? 0));
  const heard = around(clip.onset, join);
  const checked = around(laid, join);
  const sourceThere = around(analysis.onset, Math.round((plan.parts[1].sourceStart) / hop));
  assert.ok(heard > 0.5, `the clip's own onset at the join: ${heard}`);
  assert.ok(sourceThere < 0.1 * heard, `the source's onset where the second part starts: ${sourceThere}`);
  assert.ok(Math.abs(checked / heard - 1) <= JOIN_ONSET_TOLERANCE, `the check's onset at the join ${checked}, the clip's ${heard}`);
});
