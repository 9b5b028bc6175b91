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
/** Frames decoded and discarded before the range: one for the IMDCT overlap, one for the synthesis filterbank. */
const OVERLAP_FRAMES = 2;

let decoder: MPEGDecoder | undefined;

/** One decoder per thread, reused: creating the WASM instance costs more than decoding a clip. */
async function sharedDecoder(): Promise<MPEGDecoder> {
  if (!decoder) {
    decoder = new MPEGDecoder({ enableGapless: false });
    await decoder.ready;
  } else {
    await decoder.reset();
  }
  return decoder;
}

/** Frames to decode before `frame` so that its reservoir data and overlap state are complete. */
export function prerollFrames(index: FrameIndex, frame: number): number {
  let count = 0;
  let bytes = 0;
  while (frame - count > 0 && bytes < MAX_RESERVOIR_BYTES) {
    count += 1;
    bytes += index.sizes[frame - count];
  }
  return Math.min(frame, count + OVERLAP_FRAMES);
}

/**
 * Decodes playable samples [startSample, endSample) (per channel, in the track's timeline, i.e.
 * after the encoder delay) of the stream. Output is always stereo-or-mono as the file is.
 */
export async function decodeRange(bytes: Uint8Array, index: FrameIndex, startSample: number, endSample: number): Promise<Pcm> {
  const start = Math.max(0, Math.floor(startSample));
  const end = Math.min(index.totalSamples, Math.ceil(endSample));
  if (end <= start) return { sampleRate: index.sampleRate, channels: Array.from({ length: index.channels }, () => new Float32Array(0)) };
  const spf = index.samplesPerFrame;
  const rawStart = start + index.startSkip;
  const rawEnd = end + index.startSkip;
  const firstFrame = Math.floor(rawStart / spf);
  const lastFrame = Math.min(index.offsets.length - 1, Math.ceil(rawEnd / spf)); // one more frame: mpg123 may hold one back
  const fromFrame = firstFrame - prerollFrames(index, firstFrame);
  // Frames sit back to back in the file: one decode() call over the byte range is much faster
  // than one call per frame.
  const span = bytes.subarray(index.offsets[fromFrame], index.offsets[lastFrame] + index.sizes[lastFrame]);

  const mpg = await sharedDecoder();
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

/** Decodes the whole stream (playable samples only). */
export function decodeAll(bytes: Uint8Array, index: FrameIndex): Promise<Pcm> {
  return decodeRange(bytes, index, 0, index.totalSamples);
}
