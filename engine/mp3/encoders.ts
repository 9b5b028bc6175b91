// The MP3 encoders we can use, behind one small interface. Both are LAME: WASM LAME
// (wasm-media-encoders) is the default, chosen by benchmark (bench/engine.ts); lamejs is
// kept as the pure-JS alternative the benchmark compares against.
import { createMp3Encoder } from 'wasm-media-encoders';
import { Mp3Encoder as LameJsEncoder } from '@breezystack/lamejs';

export interface Mp3FrameEncoder {
  name: string;
  /** Encodes a whole clip (stereo, 44.1 kHz) to raw MP3 frames, no tag frame. */
  encode(left: Float32Array, right: Float32Array, bitrateKbps: number): Promise<Uint8Array>;
}

/** LAME's encoder delay (samples of silence it puts before the first input sample). */
export const LAME_ENCODER_DELAY = 576;

const CHUNK = 1152 * 64; // samples per encode() call

/**
 * The gain LAME's CBR presets apply to their input (LAME 3.100 presets.c, abr_switch_map's
 * `scale`: 0.95 up to 160 kbps, 0.97 at 192, 0.98 at 224, 1 from 256; measured the same for both
 * encoders), which neither lets us set. Left in, a clip's re-encoded edges and joins came out
 * 0.45 dB quieter than the source frames copied around them at 128 kbps: a level step at each.
 */
function presetGain(bitrateKbps: number): number {
  if (bitrateKbps >= 256) return 1;
  if (bitrateKbps >= 224) return 0.98;
  return bitrateKbps >= 192 ? 0.97 : 0.95;
}

/**
 * `samples` scaled by the inverse of the preset's gain, so that what is encoded decodes at the
 * level it was given; into `out` when given (at least as long), else a new array.
 */
function levelled(samples: Float32Array, bitrateKbps: number, out = new Float32Array(samples.length)): Float32Array {
  const gain = presetGain(bitrateKbps);
  if (gain === 1) return samples;
  const scale = 1 / gain;
  const scaled = out.subarray(0, samples.length);
  for (let i = 0; i < samples.length; i++) scaled[i] = samples[i] * scale;
  return scaled;
}

/** One chunk of each channel, levelled: reused by every encode (the encoder copies its input). */
const levelledChunks = [new Float32Array(CHUNK), new Float32Array(CHUNK)];

function concat(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

let wasmEncoder: Awaited<ReturnType<typeof createMp3Encoder>> | undefined;

export const wasmLame: Mp3FrameEncoder = {
  name: 'wasm-media-encoders (LAME 3.100, WASM)',
  async encode(left, right, bitrateKbps) {
    wasmEncoder ??= await createMp3Encoder();
    // configure() resets the encoder: one instance per thread serves every clip.
    wasmEncoder.configure({ channels: 2, sampleRate: 44100, bitrate: bitrateKbps as 128 });
    const parts: Uint8Array[] = [];
    for (let i = 0; i < left.length; i += CHUNK) {
      // encode() returns a view into WASM memory that the next call overwrites: copy it.
      const chunk = [levelled(left.subarray(i, i + CHUNK), bitrateKbps, levelledChunks[0]), levelled(right.subarray(i, i + CHUNK), bitrateKbps, levelledChunks[1])];
      parts.push(wasmEncoder.encode(chunk).slice());
    }
    parts.push(wasmEncoder.finalize().slice());
    return concat(parts);
  },
};

function toInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    out[i] = s < 0 ? s * 0x8000 : s * 0x7fff;
  }
  return out;
}

export const lameJs: Mp3FrameEncoder = {
  name: '@breezystack/lamejs (LAME port, JS)',
  async encode(left, right, bitrateKbps) {
    const encoder = new LameJsEncoder(2, 44100, bitrateKbps);
    // Int16 input: samples the preset's gain would bring back under full scale are clipped here.
    const l = toInt16(levelled(left, bitrateKbps));
    const r = toInt16(levelled(right, bitrateKbps));
    const parts: Uint8Array[] = [];
    for (let i = 0; i < l.length; i += 1152) parts.push(new Uint8Array(encoder.encodeBuffer(l.subarray(i, i + 1152), r.subarray(i, i + 1152))));
    parts.push(new Uint8Array(encoder.flush()));
    return concat(parts);
  },
};

export const defaultEncoder = wasmLame;
