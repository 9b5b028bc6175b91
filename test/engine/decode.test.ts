// Frame index and range decoding: a range decode equals the full decode; every MPEG layer III
// flavour we accept is indexed; bad input is a typed error, never a crash or a hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMp3Encoder } from 'wasm-media-encoders';
import { indexFrames } from '../../engine/mp3/frame-index.ts';
import { decodeAll, decodeRange, openRangeDecoder } from '../../engine/mp3/decode.ts';
import { isEngineError } from '../../engine/errors.ts';
import { serialiseAnalysis, deserialiseAnalysis } from '../../engine/analysis/serialise.ts';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { drumPattern } from '../support/synth.ts';
import { mp3Of } from '../support/audio.ts';

/** Raw LAME output (no tag of ours): VBR, other sample rates, mono. */
async function lameEncode(mono: Float32Array, options: { vbrQuality?: number; bitrate?: number; outputSampleRate?: number; channels: 1 | 2 }): Promise<Uint8Array> {
  const encoder = await createMp3Encoder();
  encoder.configure({ channels: options.channels, sampleRate: 44100, ...(options.vbrQuality !== undefined ? { vbrQuality: options.vbrQuality } : { bitrate: (options.bitrate ?? 128) as 128 }), outputSampleRate: options.outputSampleRate as any });
  const input = options.channels === 2 ? [mono, mono] : [mono];
  const head = encoder.encode(input).slice();
  const tail = encoder.finalize().slice();
  const out = new Uint8Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

function assertRangeEqualsFull(full: Float32Array[], range: Float32Array[], start: number) {
  for (let c = 0; c < full.length; c++) {
    let worst = 0;
    for (let i = 0; i < range[c].length; i++) worst = Math.max(worst, Math.abs(range[c][i] - full[c][start + i]));
    // Identical up to float rounding in mpg123's synthesis (seen: < 1e-7).
    assert.ok(worst <= 1e-6, `channel ${c}: max difference ${worst} at start ${start}`);
  }
}

/** The test files: our own tagged CBR, and raw LAME output in the other flavours we accept. */
async function flavours(signal: Float32Array): Promise<Record<string, Uint8Array>> {
  return {
    'cbr 44.1k stereo (tagged)': await mp3Of(signal),
    'vbr 44.1k stereo': await lameEncode(signal, { vbrQuality: 2, channels: 2 }),
    // Frames of 32 kbps hold less main data than a reservoir may reach back (511 bytes).
    'cbr 32 kbps 44.1k stereo': await lameEncode(signal, { bitrate: 32, channels: 2 }),
    'mpeg-2 22.05k stereo': await lameEncode(signal, { outputSampleRate: 22050, channels: 2 }),
    'mpeg-2.5 11.025k mono': await lameEncode(signal, { outputSampleRate: 11025, channels: 1 }),
  };
}

/** Ranges (in samples) at the start, in the middle, a short one and at the end. */
function rangesOf(index: ReturnType<typeof indexFrames>): number[][] {
  const rate = index.sampleRate;
  return [[0, rate], [3.3 * rate, 7.1 * rate], [11 * rate + 17, 11 * rate + 5000], [index.totalSamples - 3000, index.totalSamples]];
}

test('range decode equals full decode at the same positions (CBR, VBR, 32 kbps, MPEG-2, mono)', async () => {
  for (const [name, bytes] of Object.entries(await flavours(drumPattern(123, 20)))) {
    const index = indexFrames(bytes);
    const full = await decodeAll(bytes, index);
    assert.equal(full.channels[0].length, index.totalSamples, name);
    for (const [from, to] of rangesOf(index)) {
      const range = await decodeRange(bytes, index, from, to);
      assert.equal(range.channels[0].length, Math.round(to) - Math.floor(from), name);
      assertRangeEqualsFull(full.channels, range.channels, Math.floor(from));
    }
  }
});

test('one range decoder, many ranges: each equals the full decode, and the same calls on a new one give the same samples', async () => {
  const files = Object.values(await flavours(drumPattern(97, 15)));
  const fulls = await Promise.all(files.map((bytes) => decodeAll(bytes, indexFrames(bytes))));
  // Backwards through each file's ranges, from file to file (other rates, mono after stereo).
  const calls = files.flatMap((bytes, f) => rangesOf(indexFrames(bytes)).reverse().map(([from, to]) => ({ f, from, to })));
  const decodeAllCalls = async () => {
    const decoder = await openRangeDecoder();
    try {
      const decoded = [];
      for (const { f, from, to } of calls) decoded.push(await decoder.decode(files[f], indexFrames(files[f]), from, to));
      return decoded;
    } finally {
      decoder.close();
    }
  };
  const first = await decodeAllCalls();
  calls.forEach(({ f, from, to }, i) => {
    assert.equal(first[i].channels[0].length, Math.round(to) - Math.floor(from), `file ${f}`);
    assertRangeEqualsFull(fulls[f].channels, first[i].channels, Math.floor(from));
  });
  const again = await decodeAllCalls();
  again.forEach((pcm, i) => pcm.channels.forEach((channel, c) => assert.deepEqual(channel, first[i].channels[c], `call ${i}, channel ${c}`)));
});

test('ID3v2 tags and junk before the first frame are skipped', async () => {
  const bytes = await mp3Of(drumPattern(100, 5));
  const tagBody = new Uint8Array(300).fill(0x41);
  const id3 = new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 2, 44, ...tagBody]); // size 300 syncsafe = 2*128+44
  const tagged = new Uint8Array(id3.length + 7 + bytes.length);
  tagged.set(id3);
  tagged.set([0xff, 0xfb, 1, 2, 3, 4, 5], id3.length); // a false sync
  tagged.set(bytes, id3.length + 7);
  const plain = indexFrames(bytes);
  const withTag = indexFrames(tagged);
  assert.equal(withTag.offsets.length, plain.offsets.length);
  assert.equal(withTag.totalSamples, plain.totalSamples);
});

test('empty, non-MP3, corrupt and truncated input give typed errors or a shorter valid stream', async () => {
  const invalid = (fn: () => unknown) => assert.throws(fn, (err) => isEngineError(err) && err.code === 'invalid_audio');
  invalid(() => indexFrames(new Uint8Array(0)));
  invalid(() => indexFrames(new TextEncoder().encode('{"this": "is json, not audio"}'.repeat(100))));
  invalid(() => indexFrames(new Uint8Array(100_000).fill(0xff)));
  const random = new Uint8Array(200_000);
  let seed = 12345;
  for (let i = 0; i < random.length; i++) random[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  invalid(() => indexFrames(random));

  const good = await mp3Of(drumPattern(100, 10));
  const truncated = good.subarray(0, Math.floor(good.length / 2) + 123);
  const index = indexFrames(truncated);
  assert.ok(index.offsets.length > 0 && index.offsets.length < indexFrames(good).offsets.length);
  const pcm = await decodeAll(truncated, index);
  assert.ok(pcm.channels[0].length > 4 * 44100);

  // Corrupted payload: the index survives, decoding does not crash or hang.
  const corrupt = good.slice();
  for (let i = 5000; i < corrupt.length; i += 97) corrupt[i] ^= 0x5a;
  try {
    const corruptIndex = indexFrames(corrupt);
    await decodeAll(corrupt, corruptIndex);
  } catch (err) {
    assert.ok(isEngineError(err), String(err));
  }
});

test('an analysis survives serialisation', async () => {
  const bytes = await mp3Of(drumPattern(120, 20));
  const analysis = analysePcm(await decodeAll(bytes, indexFrames(bytes)));
  const again = deserialiseAnalysis(serialiseAnalysis(analysis));
  assert.deepEqual({ ...again }, { ...analysis });
  assert.throws(() => deserialiseAnalysis(new Uint8Array(16)));
});
