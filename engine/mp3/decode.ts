// MP3 to PCM with mpg123 (WASM). Range decoding feeds only the frames a range needs, plus pre-roll
// frames so the bit reservoir and the filterbank overlap are filled exactly as in a full decode.
import { MPEGDecoder } from 'mpg123-decoder';
import { EngineError } from '../errors.ts';
import type { FrameIndex } from './frame-index.ts';

export interface Pcm {
  sampleRate: number;
  /** One Float32Array per channel, equal lengths. */
  channels: Float32Array[];
}

/** Main-data bytes a layer III frame may borrow from earlier frames (main_data_begin is 9 bits). */
const MAX_RESERVOIR_BYTES = 511;
/**
 * Frames decoded and discarded before the range (after the reservoir frames that feed them): one
 * for the IMDCT overlap, then the synthesis filterbank's memory. Two were enough from a newly reset
 * decoder, but after another range 9e-6 stayed in the first 200 samples; three leave < 1e-6.
 */
const OVERLAP_FRAMES = 3;

/** The thread's decoder while no range decoder holds it (creating a WASM instance costs ~7 ms). */
let idle: MPEGDecoder | undefined;

/**
 * Decodes ranges of MP3 streams one after another with one decoder, reset once when opened: a
 * reset re-creates mpg123's WASM instance, ~7 ms, more than decoding the half second around an
 * edit's join, and a clip decodes a range per edge and two per join. Each range is fed with its
 * pre-roll frames (prerollFrames), which overwrite what the previous range left in the decoder;
 * what remains is float rounding in the synthesis (< 1e-7). The same calls in the same order on a
 * newly opened decoder give the same samples, so a clip stays a function of its request. A range
 * from the stream's very start has no pre-roll, so it resets the decoder first (when it was used).
 */
export interface RangeDecoder {
  /** Playable samples [startSample, endSample) of the stream (as decodeRange). */
  decode(bytes: Uint8Array, index: FrameIndex, startSample: number, endSample: number): Promise<Pcm>;
  /** Gives the decoder back to the thread; the range decoder is not used after this. */
  close(): void;
}

export async function openRangeDecoder(): Promise<RangeDecoder> {
  let mpg = idle;
  idle = undefined;
  if (mpg) {
    await mpg.reset();
  } else {
    // Another range decoder holds the thread's decoder (clips made concurrently in one thread): a new one.
    mpg = new MPEGDecoder({ enableGapless: false });
    await mpg.ready;
  }
  const decoder = mpg;
  let used = false;
  return {
    async decode(bytes, index, startSample, endSample) {
      // A range fed from the stream's first frame has no pre-roll to overwrite what an earlier range left.
      if (used && firstFedFrame(index, startSample) === 0) await decoder.reset();
      used = true;
      return decodeWith(decoder, bytes, index, startSample, endSample);
    },
    close: () => {
      idle ??= decoder;
    },
  };
}

/**
 * Frames to decode before `frame` so that its samples are exact: OVERLAP_FRAMES for the IMDCT
 * overlap and the synthesis filterbank, and before those the frames holding those frames' own
 * reservoir data (up to 511 bytes back). Decoded without that data, an overlap frame leaves wrong
 * overlap in the decoder: a range decoder that decoded another range before holds other bytes
 * there, and a VBR range read after another was 0.3 off in its first 600 samples.
 */
function prerollFrames(index: FrameIndex, frame: number): number {
  const overlapStart = Math.max(0, frame - OVERLAP_FRAMES);
  let count = 0;
  let bytes = 0;
  while (overlapStart - count > 0 && bytes < MAX_RESERVOIR_BYTES) {
    count += 1;
    bytes += index.sizes[overlapStart - count];
  }
  return frame - overlapStart + count;
}

/** The first frame fed to decode the stream from `startSample` on: its pre-roll's first. */
function firstFedFrame(index: FrameIndex, startSample: number): number {
  const firstFrame = Math.floor((Math.max(0, Math.floor(startSample)) + index.startSkip) / index.samplesPerFrame);
  return firstFrame - prerollFrames(index, firstFrame);
}

/**
 * Decodes playable samples [startSample, endSample) (per channel, in the track's timeline, i.e.
 * after the encoder delay) of the stream, on the given decoder. Output is always stereo-or-mono as the file is.
 */
function decodeWith(mpg: MPEGDecoder, bytes: Uint8Array, index: FrameIndex, startSample: number, endSample: number): Pcm {
  const start = Math.max(0, Math.floor(startSample));
  const end = Math.min(index.totalSamples, Math.ceil(endSample));
  if (end <= start) return { sampleRate: index.sampleRate, channels: Array.from({ length: index.channels }, () => new Float32Array(0)) };
  const spf = index.samplesPerFrame;
  const rawStart = start + index.startSkip;
  const rawEnd = end + index.startSkip;
  const lastFrame = Math.min(index.offsets.length - 1, Math.ceil(rawEnd / spf)); // one more frame: mpg123 may hold one back
  const fromFrame = firstFedFrame(index, start);
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
  const from = rawStart - outputStartRaw;
  const to = rawEnd - outputStartRaw;
  if (from < 0) throw new EngineError('invalid_audio', `corrupt MP3: frames before sample ${start} could not be decoded`);
  const channels = decoded.channelData.slice(0, index.channels).map((ch) => {
    const out = new Float32Array(end - start);
    out.set(ch.subarray(from, Math.min(to, ch.length)));
    return out;
  });
  return { sampleRate: decoded.sampleRate, channels };
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
