// MP3 to PCM with mpg123 (WASM). Range decoding feeds only the frames a range needs, plus pre-roll
// frames that fill the bit reservoir and the filterbank overlap as a full decode has them: the
// samples equal a full decode's to float rounding (< 1e-6; mpg123's synthesis buffer rotates with
// the frames decoded before, so the last bits depend on what the decoder decoded earlier).
import { MPEGDecoder } from 'mpg123-decoder';
import { EngineError } from '../errors.ts';
import type { FrameIndex } from './frame-index.ts';
import { maxReservoirBytes, sideInfoEnd } from './frame-header.ts';

export interface Pcm {
  sampleRate: number;
  /** One Float32Array per channel, equal lengths. */
  channels: Float32Array[];
}

/** Frames decoded and discarded before the range, after the reservoir frames that feed them: one for the IMDCT overlap, one for the synthesis filterbank. */
const OVERLAP_FRAMES = 2;

/**
 * The thread's decoder while no range decoder holds it, being reset (undefined once a reset
 * failed). It is reset when given back, not when taken: the clip's result is on its way while
 * the ~6 ms reset runs, instead of the next clip waiting for it.
 */
let idle: Promise<MPEGDecoder | undefined> | undefined;

/** A decoder in its initial state: the thread's once reset, or a new one when another range decoder holds it. */
async function takeDecoder(): Promise<MPEGDecoder> {
  const pending = idle;
  idle = undefined;
  const reset = await pending;
  if (reset) return reset;
  const created = new MPEGDecoder({ enableGapless: false });
  await created.ready;
  return created;
}

/** Gives a decoder back to the thread; a surplus one (clips made concurrently) is left to the garbage collector. */
function giveBack(decoder: MPEGDecoder): void {
  if (idle) return;
  try {
    idle = decoder.reset().then(
      () => decoder,
      () => undefined,
    );
  } catch {
    // A WASM instance that trapped may fail to free: the next taker makes a new one.
  }
}

/**
 * Decodes ranges of MP3 streams one after another on one newly reset decoder, not a decoder reset
 * per range: a reset re-creates mpg123's WASM instance, ~6 ms, more than decoding the half second
 * around an edit's join, and a clip decodes a range per edge and two per join. Each range's pre-roll
 * overwrites what the previous range left in the decoder; a range fed from the stream's very
 * first frame has none, so it resets the decoder first (when it was used), as does any range
 * after one that mpg123 reported errors for (a bogus frame may still be half fed). The same calls
 * in the same order on a newly opened decoder give the same samples, so a clip stays a function
 * of its request. Calls must not overlap: await each before the next.
 */
export interface RangeDecoder {
  /** Playable samples [startSample, endSample) of the stream (as decodeRange). */
  decode(bytes: Uint8Array, index: FrameIndex, startSample: number, endSample: number): Promise<Pcm>;
  /** Gives the decoder back to the thread; the range decoder is not used after this. */
  close(): void;
}

export async function openRangeDecoder(): Promise<RangeDecoder> {
  const decoder = await takeDecoder();
  let used = false;
  // Set until a range decodes without errors: a throw or an mpg123 error leaves the decoder to reset.
  let dirty = false;
  return {
    async decode(bytes, index, startSample, endSample) {
      const range = frameRange(index, startSample, endSample);
      if (!range) return emptyPcm(index);
      if (dirty || (used && range.fromFrame === 0)) await decoder.reset();
      used = dirty = true;
      const { pcm, errors } = decodeFrames(decoder, bytes, index, range);
      dirty = errors;
      return pcm;
    },
    close: () => giveBack(decoder),
  };
}

/**
 * Frames to decode before `frame` so that its samples are exact: OVERLAP_FRAMES for the IMDCT
 * overlap and the synthesis filterbank, and before those the frames holding those frames' own
 * reservoir data (main data only: main_data_begin does not count headers and side info, so
 * frames of 56 kbps or less hold fewer than their size). Decoded without that data, an overlap
 * frame leaves wrong overlap in the decoder: a range decoder that decoded another range before
 * holds other bytes there, and a VBR range read after another was 0.3 off in its first 600
 * samples when only the first frame's reservoir was fed, 9e-6 when frames were counted whole.
 */
function prerollFrames(index: FrameIndex, frame: number): number {
  // The CRC counted whether or not the frames carry one: their main data is then never overestimated.
  const overhead = sideInfoEnd(index.samplesPerFrame, index.channels, true);
  const reach = maxReservoirBytes(index.samplesPerFrame);
  const overlapStart = Math.max(0, frame - OVERLAP_FRAMES);
  let count = 0;
  let bytes = 0;
  while (overlapStart - count > 0 && bytes < reach) {
    count += 1;
    bytes += Math.max(0, index.sizes[overlapStart - count] - overhead);
  }
  return frame - overlapStart + count;
}

/** Playable samples [start, end) of a range (clamped to the stream), and the frames fed for them. */
interface FrameRange {
  start: number;
  end: number;
  /** The first frame fed: the pre-roll's first. */
  fromFrame: number;
  lastFrame: number;
}

/** The range [startSample, endSample) in frames; undefined when it holds no samples. */
function frameRange(index: FrameIndex, startSample: number, endSample: number): FrameRange | undefined {
  const start = Math.max(0, Math.floor(startSample));
  const end = Math.min(index.totalSamples, Math.ceil(endSample));
  if (end <= start) return undefined;
  const spf = index.samplesPerFrame;
  const firstFrame = Math.floor((start + index.startSkip) / spf);
  const lastFrame = Math.min(index.offsets.length - 1, Math.ceil((end + index.startSkip) / spf)); // one more frame: mpg123 may hold one back
  return { start, end, fromFrame: firstFrame - prerollFrames(index, firstFrame), lastFrame };
}

function emptyPcm(index: FrameIndex): Pcm {
  return { sampleRate: index.sampleRate, channels: Array.from({ length: index.channels }, () => new Float32Array(0)) };
}

/**
 * Feeds the range's frames (per channel, in the track's timeline, i.e. after the encoder delay)
 * to the decoder and cuts out the range's samples, stereo or mono as the file is; `errors` when
 * mpg123 reported any.
 */
function decodeFrames(mpg: MPEGDecoder, bytes: Uint8Array, index: FrameIndex, range: FrameRange): { pcm: Pcm; errors: boolean } {
  const { start, end, fromFrame, lastFrame } = range;
  const spf = index.samplesPerFrame;
  // Frames sit back to back in the file: one decode() call over the byte range is much faster
  // than one call per frame.
  const span = bytes.subarray(index.offsets[fromFrame], index.offsets[lastFrame] + index.sizes[lastFrame]);
  const decoded = mpg.decode(span);
  if (decoded.samplesDecoded === 0 && span.length > 0) {
    throw new EngineError('invalid_audio', `corrupt MP3: frames ${fromFrame}-${lastFrame} decoded to no audio`);
  }
  // mpg123 may emit nothing for a first frame whose reservoir is missing; the output always ends
  // with the last frame fed, so align from the end.
  const outputStartRaw = (lastFrame + 1) * spf - decoded.samplesDecoded;
  const from = start + index.startSkip - outputStartRaw;
  const to = end + index.startSkip - outputStartRaw;
  if (from < 0) throw new EngineError('invalid_audio', `corrupt MP3: frames before sample ${start} could not be decoded`);
  const channels = decoded.channelData.slice(0, index.channels).map((ch) => {
    const out = new Float32Array(end - start);
    out.set(ch.subarray(from, Math.min(to, ch.length)));
    return out;
  });
  return { pcm: { sampleRate: decoded.sampleRate, channels }, errors: decoded.errors.length > 0 };
}

/** Decodes playable samples [startSample, endSample) of the stream on a newly reset decoder. */
export async function decodeRange(bytes: Uint8Array, index: FrameIndex, startSample: number, endSample: number): Promise<Pcm> {
  const decoder = await openRangeDecoder();
  try {
    return await decoder.decode(bytes, index, startSample, endSample);
  } finally {
    decoder.close();
  }
}

/** Decodes the whole stream (playable samples only). */
export function decodeAll(bytes: Uint8Array, index: FrameIndex): Promise<Pcm> {
  return decodeRange(bytes, index, 0, index.totalSamples);
}
