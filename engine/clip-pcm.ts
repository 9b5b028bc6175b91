// PCM shaping shared by every way of making a clip: the clip's sample rate, resampling the rare
// source that is not at it, and the de-click ramps at a clip's edges.
import type { Pcm } from './mp3/decode.ts';

export const CLIP_SAMPLE_RATE = 44100;
/** Length of the raised-cosine ramp at each edge: enough to avoid a click, far too short to be a fade. */
export const DECLICK_SECONDS = 0.003;

/** Linear-interpolation resampling: only for the rare source that is not 44.1 kHz. */
function resample(channel: Float32Array, from: number, to: number, length: number): Float32Array {
  if (from === to) return channel;
  const out = new Float32Array(length);
  const ratio = from / to;
  for (let i = 0; i < length; i++) {
    const x = i * ratio;
    const j = Math.floor(x);
    const frac = x - j;
    out[i] = (channel[j] ?? 0) * (1 - frac) + (channel[j + 1] ?? channel[j] ?? 0) * frac;
  }
  return out;
}

/**
 * Applies the de-click ramps of a clip of `clipSamples` to `part`, a stretch of it whose first
 * sample is at `offset` in the clip (parts let the splice shape just the edges it re-encodes).
 */
export function declickPart(part: Float32Array, offset: number, clipSamples: number, sampleRate = CLIP_SAMPLE_RATE): void {
  const n = Math.min(Math.floor(clipSamples / 2), Math.round(DECLICK_SECONDS * sampleRate));
  for (let i = 0; i < n; i++) {
    const gain = 0.5 - 0.5 * Math.cos((Math.PI * i) / n);
    const head = i - offset;
    const tail = clipSamples - 1 - i - offset;
    if (head >= 0 && head < part.length) part[head] *= gain;
    if (tail >= 0 && tail < part.length) part[tail] *= gain;
  }
}

export function stereoAt44100(pcm: Pcm, samples: number): [Float32Array, Float32Array] {
  const left = resample(pcm.channels[0], pcm.sampleRate, CLIP_SAMPLE_RATE, samples);
  const right = pcm.channels.length > 1 ? resample(pcm.channels[1], pcm.sampleRate, CLIP_SAMPLE_RATE, samples) : left.slice();
  return [left.length === samples ? left : left.subarray(0, samples), right.length === samples ? right : right.subarray(0, samples)];
}
