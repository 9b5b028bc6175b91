// PCM to a gapless MP3: LAME frames behind an Info frame that carries the encoder delay and the
// padding, so mpg123 (gapless) and ffmpeg return exactly the samples we encoded.
import { buildInfoFrame } from './gapless-tag.ts';
import { indexFrames } from './frame-index.ts';
import { defaultEncoder, LAME_ENCODER_DELAY, type Mp3FrameEncoder } from './encoders.ts';

export const DEFAULT_BITRATE_KBPS = 128;

export async function encodeGaplessMp3(
  left: Float32Array,
  right: Float32Array,
  options: { bitrateKbps?: number; encoder?: Mp3FrameEncoder } = {},
): Promise<Uint8Array> {
  const bitrateKbps = options.bitrateKbps ?? DEFAULT_BITRATE_KBPS;
  const frames = await (options.encoder ?? defaultEncoder).encode(left, right, bitrateKbps);
  const index = indexFrames(frames);
  const frameCount = index.offsets.length;
  const padding = frameCount * 1152 - LAME_ENCODER_DELAY - left.length;
  const firstOffset = index.offsets[0];
  const info = buildInfoFrame({
    sampleRate: 44100,
    bitrateKbps,
    info: { frameCount, encoderDelay: LAME_ENCODER_DELAY, padding },
    audioBytes: frames.length - firstOffset,
    frameOffsets: index.offsets.map((o) => o - firstOffset),
  });
  const out = new Uint8Array(info.length + frames.length - firstOffset);
  out.set(info, 0);
  out.set(frames.subarray(firstOffset), info.length);
  return out;
}
