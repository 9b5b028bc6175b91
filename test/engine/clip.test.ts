// Clips measured, not eyeballed: decoded length, where the re-analysed peak lands, the edges,
// and the Xing/LAME fields we write, read back by our parser and by ffmpeg when installed.
import { test, before } from 'node:test';
import { hasTool, skipUnless } from '../support/requirements.ts';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analysePcm, type Analysis } from '../../engine/analysis/analyse.ts';
import { indexFrames, type FrameIndex } from '../../engine/mp3/frame-index.ts';
import { makeClip } from '../../engine/clip.ts';
import { selectSegment } from '../../engine/segment.ts';
import { isEngineError } from '../../engine/errors.ts';
import { climaxPiece } from '../support/synth.ts';
import { decodeMp3, mp3Of } from '../support/audio.ts';
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';
import { lameJs, wasmLame } from '../../engine/mp3/encoders.ts';
import type { Pcm } from '../../engine/mp3/decode.ts';
import { MPEG1_FRAME_SAMPLES, parseFrameHeader } from '../../engine/mp3/frame-header.ts';
import { readSideInfo } from '../../engine/mp3/side-info.ts';

const CLIMAX = 95.625;
let track: Uint8Array;
let index: FrameIndex;
let analysis: Analysis;

before(async () => {
  track = await mp3Of(climaxPiece(128, 180, CLIMAX));
  index = indexFrames(track);
  analysis = analysePcm(await decodeMp3(track));
});

const CASES: [number, number | undefined][] = [
  [10, undefined], [30, undefined], [60, undefined], [30, 0.5], [30, 10], [30, 29], [15, 7.5], [90, 60], [120, 40],
];

test('decoded clip length is D, and the re-analysed peak lands within 1 s of H', async () => {
  for (const [duration, hit] of CASES) {
    const clip = await makeClip(track, index, analysis, { mode: 'segment', durationSeconds: duration, hitPointSeconds: hit });
    const pcm = await decodeMp3(clip.mp3);
    assert.equal(pcm.sampleRate, 44100);
    assert.equal(pcm.channels.length, 2);
    assert.equal(pcm.channels[0].length, Math.round(duration * 44100), `D=${duration}`);
    if (hit !== undefined) {
      assert.ok(Math.abs(clip.plan.peakInClipSeconds! - hit) <= 1, `H=${hit}: plan says ${clip.plan.peakInClipSeconds}`);
      const reanalysed = analysePcm(pcm);
      assert.ok(Math.abs(reanalysed.peakSeconds - hit) <= 1, `D=${duration} H=${hit}: re-analysed peak at ${reanalysed.peakSeconds}`);
    }
  }
});

test('without a hit point the clip starts on a bar and contains the climax when it fits', async () => {
  for (const duration of [30, 60]) {
    const segment = selectSegment(analysis, duration);
    assert.ok(analysis.barTimesSeconds.some((b) => Math.abs(b - segment.startSeconds) < 1e-3) || analysis.sectionTimesSeconds.some((b) => Math.abs(b - segment.startSeconds) < 1e-3), `start ${segment.startSeconds}`);
    assert.ok(segment.startSeconds <= CLIMAX && CLIMAX <= segment.startSeconds + duration, `D=${duration}: [${segment.startSeconds}, +${duration}] misses the climax`);
  }
});

test('no discontinuity spike at either boundary (de-click ramp <= 5 ms, no fade)', async () => {
  const clip = await makeClip(track, index, analysis, { mode: 'segment', durationSeconds: 30, hitPointSeconds: 10 });
  const [left] = (await decodeMp3(clip.mp3)).channels;
  const step = (from: number, to: number) => {
    let max = 0;
    for (let i = Math.max(1, from); i < to; i++) max = Math.max(max, Math.abs(left[i] - left[i - 1]));
    return max;
  };
  const interior = step(44100, left.length - 44100);
  assert.ok(Math.abs(left[0]) < 0.02, `first sample ${left[0]}`);
  assert.ok(Math.abs(left[left.length - 1]) < 0.02, `last sample ${left[left.length - 1]}`);
  assert.ok(step(0, 441) <= interior * 1.5, `start step ${step(0, 441)} vs interior ${interior}`);
  assert.ok(step(left.length - 441, left.length) <= interior * 1.5, `end step vs interior ${interior}`);
  // No fade: 10 ms in, the level is that of the source, not ramping.
  let rmsClip = 0;
  for (let i = 441; i < 441 + 4410; i++) rmsClip += left[i] ** 2;
  assert.ok(Math.sqrt(rmsClip / 4410) > 0.01, 'audible right after the ramp');
});

test('the Info frame carries frame count, encoder delay and padding that add up', async () => {
  const clip = await makeClip(track, index, analysis, { mode: 'segment', durationSeconds: 30 });
  const clipIndex = indexFrames(clip.mp3);
  assert.ok(clipIndex.gapless);
  assert.equal(clipIndex.gapless!.frameCount, clipIndex.offsets.length);
  const delay = clipIndex.gapless!.encoderDelay;
  // LAME's 576, plus the lead-in a splice uses to line up with the source's frame grid.
  assert.ok(delay >= 576 && delay < 576 + 1152, `delay ${delay}`);
  assert.equal(clipIndex.offsets.length * 1152 - delay - clipIndex.gapless!.padding, 30 * 44100);
  assert.equal(clipIndex.totalSamples, 30 * 44100);
  // The LAME tag's CRC-16 over the first 190 bytes.
  let crc = 0;
  for (let i = 0; i < 190; i++) {
    crc ^= clip.mp3[i];
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  assert.equal((clip.mp3[190] << 8) | clip.mp3[191], crc);
});

test('ffmpeg decodes exactly the clip samples', { skip: skipUnless(hasTool('ffmpeg'), 'ffmpeg (apt-get install ffmpeg)') }, async () => {
  const clip = await makeClip(track, index, analysis, { mode: 'segment', durationSeconds: 20, hitPointSeconds: 5 });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mla-clip-')), 'clip.mp3');
  fs.writeFileSync(file, clip.mp3);
  const raw = execFileSync('ffmpeg', ['-loglevel', 'error', '-i', file, '-f', 'f32le', '-ac', '2', '-'], { maxBuffer: 1 << 28 });
  assert.equal(raw.length / 8, 20 * 44100);
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
});

test('impossible requests are typed errors that state the feasible range', () => {
  assert.throws(() => selectSegment(analysis, 200), (err) => isEngineError(err) && err.code === 'duration_unavailable' && err.details.max === 180 && /180/.test(err.message));
  // The peak is at ~95.6 s of 180 s: with D=30 a hit point of 29 s needs a start at ~66.6 s (fine),
  // but with D=120 the latest start is 60 s, so H must be at least ~34.6 s.
  assert.throws(() => selectSegment(analysis, 120, 5), (err) => {
    return isEngineError(err) && err.code === 'hit_point_unreachable' && Math.abs(err.details.min - (CLIMAX - 60 - 1)) < 0.6 && /from \d/.test(err.message);
  });
  assert.doesNotThrow(() => selectSegment(analysis, 120, 40));
});

test('a hit point just under the clip\'s length still puts the peak in the clip, within 1 s of it', () => {
  for (const duration of [10, 20, 30]) {
    for (const hit of [duration - 1e-5, duration - 5e-4, duration - 0.3]) {
      const segment = selectSegment(analysis, duration, hit);
      assert.notEqual(segment.hitPointSeconds, null, `D ${duration}, H ${hit}: the peak is in the clip`);
      assert.ok(segment.hitPointSeconds! <= duration - 0.001 || Math.abs(segment.hitPointSeconds! - hit) < 1e-9, `D ${duration}, H ${hit}: at ${segment.hitPointSeconds}`);
      assert.ok(Math.abs(segment.hitPointSeconds! - hit) <= 1, `D ${duration}, H ${hit}: at ${segment.hitPointSeconds}`);
    }
  }
});

test('splice: the middle is the source itself, the edges are re-encoded; full re-encode as the fallback', async () => {
  const source = await decodeMp3(track);
  for (const [duration, hit] of [[30, 10], [12, 4], [90, undefined]] as const) {
    const spliced = await makeClip(track, index, analysis, { mode: 'segment', durationSeconds: duration, hitPointSeconds: hit });
    const encoded = await makeClip(track, index, analysis, { mode: 'segment', durationSeconds: duration, hitPointSeconds: hit }, { allowSplice: false });
    assert.equal(spliced.method, 'splice');
    assert.equal(encoded.method, 'encode');
    assert.deepEqual(spliced.plan, encoded.plan);
    const start = Math.round(spliced.plan.parts[0].sourceStart);
    const worstDifference = async (clip: Uint8Array, from: number, to: number) => {
      const pcm = await decodeMp3(clip);
      let worst = 0;
      for (let c = 0; c < 2; c++) for (let i = from; i < to; i++) worst = Math.max(worst, Math.abs(pcm.channels[c][i] - source.channels[c][start + i]));
      return worst;
    };
    const middleFrom = 44100, middleTo = duration * 44100 - 44100;
    const splicedMiddle = await worstDifference(spliced.mp3, middleFrom, middleTo);
    const encodedMiddle = await worstDifference(encoded.mp3, middleFrom, middleTo);
    assert.ok(splicedMiddle < 1e-4, `spliced middle differs from the source by ${splicedMiddle}`);
    assert.ok(encodedMiddle > splicedMiddle, 're-encoding loses more than splicing');
    // Edges: one re-encode's worth of difference, no more (ramps excluded).
    const edges = Math.max(await worstDifference(spliced.mp3, 300, middleFrom), await worstDifference(spliced.mp3, middleTo, duration * 44100 - 300));
    assert.ok(edges < 0.1, `edge difference ${edges}`);
  }
});

/** Frames at the end of `mp3` that switch blocks (not every granule a normal long block). */
function framesSwitchedAtEnd(mp3: Uint8Array, index: FrameIndex): number {
  let count = 0;
  for (let i = index.offsets.length - 1; i >= 0; i--, count++) {
    const { longBlocks } = readSideInfo(mp3, index.offsets[i], parseFrameHeader(mp3, index.offsets[i])!);
    if (longBlocks.every(Boolean)) break;
  }
  return count;
}

test('splice: a track that ends in seconds of sharp attacks (short blocks throughout) is still spliced, re-encoded from before them', async () => {
  const RATE = 44100;
  const music = climaxPiece(128, 60, 30);
  // The last 5 s: a click every 25 ms over the music, as a chiptune's noise channel plays.
  for (let t = 55 * RATE; t < music.length; t += Math.round(0.025 * RATE)) {
    for (let i = 0; i < 40 && t + i < music.length; i++) music[t + i] += (i % 2 ? -0.6 : 0.6) * (1 - i / 40);
  }
  const mp3 = await mp3Of(music);
  const sharpIndex = indexFrames(mp3);
  const switched = framesSwitchedAtEnd(mp3, sharpIndex);
  assert.ok(switched * MPEG1_FRAME_SAMPLES > 4 * RATE, `the fixture: ${switched} frames of short blocks at the end`);
  const source = await decodeMp3(mp3);
  const sharpAnalysis = analysePcm(source);
  for (const duration of [20, 30]) {
    const clip = await makeClip(mp3, sharpIndex, sharpAnalysis, { mode: 'edit', durationSeconds: duration });
    assert.equal(clip.plan.ending, 'track_end');
    assert.equal(clip.method, 'splice', `D=${duration}: no clean junction in the clicks, so the one out of the last part goes before them`);
    const pcm = await decodeMp3(clip.mp3);
    assert.equal(pcm.channels[0].length, duration * RATE);
    const last = clip.plan.parts[clip.plan.parts.length - 1];
    // Copied: the last part's middle up to 6 s before the end; re-encoded: the clicks, within one re-encode's difference.
    let copied = 0, encoded = 0;
    // The part may run a few ms past the source's end (its frame phase): the clip has silence there.
    const end = Math.min(duration * RATE, last.clipStart + source.channels[0].length - last.sourceStart) - 300;
    for (let i = last.clipStart + RATE; i < end; i++) {
      const d = Math.abs(pcm.channels[0][i] - source.channels[0][last.sourceStart + i - last.clipStart]);
      if (i < (duration - 6) * RATE) copied = Math.max(copied, d);
      else encoded = Math.max(encoded, d);
    }
    assert.ok(copied < 1e-4, `D=${duration}: the copied frames differ from the source by ${copied}`);
    assert.ok(encoded < 0.1, `D=${duration}: the re-encoded end differs from the source by ${encoded}`);
  }
});

/** The least-squares gain of `clip` against `source` over samples [from, to) of channel 0 (source from `start`). */
function gainAgainst(clip: Pcm, source: Pcm, start: number, from: number, to: number): number {
  let xx = 0, xy = 0;
  for (let i = from; i < to; i++) {
    const x = source.channels[0][start + i];
    xx += x * x;
    xy += x * clip.channels[0][i];
  }
  return xy / xx;
}

test('encoding keeps the level it is given: LAME presets scale their input, and the encoder undoes it', async () => {
  const tone = Float32Array.from({ length: 44100 }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 440 * i) / 44100));
  for (const bitrateKbps of [128, 192, 320]) {
    for (const encoder of [wasmLame, lameJs]) {
      const pcm = await decodeMp3(await encodeGaplessMp3(tone, tone, { bitrateKbps, encoder }));
      const gain = gainAgainst(pcm, { sampleRate: 44100, channels: [tone, tone] }, 0, 4410, 44100 - 4410);
      assert.ok(Math.abs(gain - 1) < 0.005, `${encoder.name} at ${bitrateKbps} kbps: gain ${gain.toFixed(4)}`);
    }
  }
  // A spliced clip's re-encoded edge sounds at the level of the copied frames after it (it was 0.95 of it).
  const source = await decodeMp3(track);
  const clip = await makeClip(track, index, analysis, { mode: 'segment', durationSeconds: 30, hitPointSeconds: 10 });
  assert.equal(clip.method, 'splice');
  const edgeGain = gainAgainst(await decodeMp3(clip.mp3), source, Math.round(clip.plan.parts[0].sourceStart), 1024, 4096);
  assert.ok(Math.abs(edgeGain - 1) < 0.02, `re-encoded edge at ${edgeGain.toFixed(3)} of the source's level`);
});

test('clips are deterministic: same input, same bytes', async () => {
  const a = await makeClip(track, index, analysis, { mode: 'segment', durationSeconds: 30, hitPointSeconds: 12 });
  const b = await makeClip(track, index, analysis, { mode: 'segment', durationSeconds: 30, hitPointSeconds: 12 });
  assert.deepEqual(Buffer.from(a.mp3), Buffer.from(b.mp3));
});
