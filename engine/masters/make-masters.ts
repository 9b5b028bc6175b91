// A delivered master (MP3, WAV or FLAC) to what the catalog keeps besides it:
// - the clip master: 44.1 kHz stereo CBR 128 kbps MP3 with the gapless tag, the one stream every
//   clip is spliced from (engine/mp3/splice.ts copies its frames), and the one analysis reads;
// - for WAV and FLAC, the full download: the same audio at CBR 320 kbps (the spec's download is an MP3).
// An MP3 that is already a clip master (44.1 kHz stereo CBR 128 kbps, what splice.ts can copy)
// is its own; any other MP3 is decoded (gapless, as clips always read it) and re-encoded once.
// Both MP3s are encoded gapless from the original's samples resampled from time 0, so sample n
// of either is the original's time n / 44.1 kHz: clips and hit points keep the original's timeline.
import { EngineError } from '../errors.ts';
import { decodeAll, type Pcm } from '../mp3/decode.ts';
import { DEFAULT_BITRATE_KBPS, encodeGaplessMp3 } from '../mp3/encode.ts';
import { indexFrames } from '../mp3/frame-index.ts';
import { canSplice } from '../mp3/splice.ts';
import { CLIP_SAMPLE_RATE } from '../clip-pcm.ts';
import { checkMasterShape, type MasterFormat } from './master-shape.ts';
import { parseWav } from './wav.ts';
import { decodeFlac } from './flac.ts';
import { resample } from './resample.ts';

/** The full download made for a WAV or FLAC master: the highest MP3 bitrate. */
export const DOWNLOAD_BITRATE_KBPS = 320;

export interface DurationLimits {
  minSeconds: number;
  maxSeconds: number;
}

export interface Masters {
  /** The original's sample rate and channels, as delivered. */
  sampleRate: number;
  channels: number;
  /** The original's playable length. */
  durationSeconds: number;
  /** The clip master; undefined when the original (an MP3) is one already. */
  clipMaster?: Uint8Array;
  /** The full-download MP3; undefined when the original is an MP3 (downloaded as delivered). */
  download?: Uint8Array;
}

function checkDuration(seconds: number, limits: DurationLimits): void {
  if (seconds < limits.minSeconds) throw new EngineError('invalid_audio', `too short: ${seconds.toFixed(1)} s (minimum ${limits.minSeconds} s)`);
  if (seconds > limits.maxSeconds) throw new EngineError('invalid_audio', `too long: ${seconds.toFixed(0)} s (maximum ${limits.maxSeconds} s)`);
}

/** The PCM at the clip rate, two channels (a mono master's one channel in both). */
function clipRateStereo(pcm: Pcm): [Float32Array, Float32Array] {
  const left = resample(pcm.channels[0], pcm.sampleRate, CLIP_SAMPLE_RATE);
  const right = pcm.channels.length > 1 ? resample(pcm.channels[1], pcm.sampleRate, CLIP_SAMPLE_RATE) : left;
  return [left, right];
}

async function mp3Masters(bytes: Uint8Array, limits: DurationLimits): Promise<Masters> {
  let index;
  try {
    index = indexFrames(bytes);
  } catch (err) {
    throw new EngineError('invalid_audio', `not a usable MP3: ${(err as Error).message}`);
  }
  const shape = { sampleRate: index.sampleRate, channels: index.channels, durationSeconds: index.totalSamples / index.sampleRate };
  checkDuration(shape.durationSeconds, limits);
  if (canSplice(index, bytes, DEFAULT_BITRATE_KBPS)) return shape;
  const [left, right] = clipRateStereo(await decodeAll(bytes, index));
  return { ...shape, clipMaster: await encodeGaplessMp3(left, right) };
}

async function pcmMasters(pcm: Pcm, limits: DurationLimits): Promise<Masters> {
  checkMasterShape({ sampleRate: pcm.sampleRate, channels: pcm.channels.length });
  const durationSeconds = pcm.channels[0].length / pcm.sampleRate;
  checkDuration(durationSeconds, limits);
  const [left, right] = clipRateStereo(pcm);
  return {
    sampleRate: pcm.sampleRate,
    channels: pcm.channels.length,
    durationSeconds,
    clipMaster: await encodeGaplessMp3(left, right),
    download: await encodeGaplessMp3(left, right, { bitrateKbps: DOWNLOAD_BITRATE_KBPS }),
  };
}

/** The masters of a delivered file in `format`; invalid_audio naming the problem when it is not one we take. */
export async function makeMasters(bytes: Uint8Array, format: MasterFormat, limits: DurationLimits): Promise<Masters> {
  if (format === 'mp3') return mp3Masters(bytes, limits);
  return pcmMasters(format === 'wav' ? parseWav(bytes) : await decodeFlac(bytes), limits);
}
