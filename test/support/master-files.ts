// Masters as a library delivers them, written byte by byte from synthetic signals: WAV (PCM or
// float, its header optionally lying about the data's length), FLAC (a minimal encoder of
// verbatim subframes: valid FLAC that libFLAC decodes, just not compressed) and MP3 at any rate,
// channel count and bitrate or VBR quality (LAME in WASM, as the engine's encoder).
import { createMp3Encoder } from 'wasm-media-encoders';

export type WavEncoding = 'pcm8' | 'pcm16' | 'pcm24' | 'float32';

const WAV_BITS: Record<WavEncoding, number> = { pcm8: 8, pcm16: 16, pcm24: 24, float32: 32 };

function quantised(sample: number, bits: number): number {
  const full = 2 ** (bits - 1);
  return Math.max(-full, Math.min(full - 1, Math.round(sample * full)));
}

/** A RIFF/WAVE file; `claimedDataBytes` replaces the data chunk's true size in its header. */
export function wavBytes(channels: Float32Array[], sampleRate: number, encoding: WavEncoding, options: { claimedDataBytes?: number } = {}): Uint8Array {
  const bits = WAV_BITS[encoding];
  const frames = channels[0].length;
  const blockAlign = (channels.length * bits) / 8;
  const dataBytes = frames * blockAlign;
  const out = new Uint8Array(44 + dataBytes);
  const view = new DataView(out.buffer);
  const text = (at: number, s: string) => [...s].forEach((c, i) => (out[at + i] = c.charCodeAt(0)));
  text(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, encoding === 'float32' ? 3 : 1, true);
  view.setUint16(22, channels.length, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * blockAlign, true);
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, bits, true);
  text(36, 'data');
  view.setUint32(40, options.claimedDataBytes ?? dataBytes, true);
  let at = 44;
  for (let i = 0; i < frames; i++) {
    for (const channel of channels) {
      const s = channel[i];
      if (encoding === 'float32') view.setFloat32(at, s, true);
      else if (encoding === 'pcm8') view.setUint8(at, quantised(s, 8) + 128); // 8-bit WAV is unsigned
      else if (encoding === 'pcm16') view.setInt16(at, quantised(s, 16), true);
      else {
        const v = quantised(s, 24);
        out[at] = v & 0xff;
        out[at + 1] = (v >> 8) & 0xff;
        out[at + 2] = (v >> 16) & 0xff;
      }
      at += bits / 8;
    }
  }
  return out;
}

/** Writes bits most significant first. */
class BitWriter {
  bytes: number[] = [];
  private current = 0;
  private filled = 0;
  write(value: number, bits: number): void {
    for (let b = bits - 1; b >= 0; b--) {
      this.current = (this.current << 1) | (Math.floor(value / 2 ** b) & 1);
      if (++this.filled === 8) {
        this.bytes.push(this.current);
        this.current = this.filled = 0;
      }
    }
  }
}

function crc8(bytes: number[]): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

function crc16(bytes: number[]): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** FLAC's UTF-8-like coding of a frame number (up to 2^21 - 1 here). */
function frameNumberBytes(n: number): number[] {
  if (n < 0x80) return [n];
  if (n < 0x800) return [0xc0 | (n >> 6), 0x80 | (n & 0x3f)];
  if (n < 0x10000) return [0xe0 | (n >> 12), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)];
  return [0xf0 | (n >> 18), 0x80 | ((n >> 12) & 0x3f), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)];
}

const FLAC_BLOCK = 4096;
/** The frame header's sample-size codes (RFC 9639 9.1.4). */
const FLAC_SAMPLE_SIZE_CODES: Record<number, number> = { 8: 0b001, 12: 0b010, 16: 0b100, 20: 0b101, 24: 0b110 };

/** The frame header's sample-rate code and the bytes it puts at the header's end (RFC 9639 9.1.2). */
function sampleRateCode(rate: number): { code: number; tail: number[] } {
  const named: Record<number, number> = { 88200: 1, 176400: 2, 192000: 3, 8000: 4, 16000: 5, 22050: 6, 24000: 7, 32000: 8, 44100: 9, 48000: 10, 96000: 11 };
  if (named[rate]) return { code: named[rate], tail: [] };
  if (rate < 65536) return { code: 0b1101, tail: [rate >> 8, rate & 0xff] };
  return { code: 0b1110, tail: [(rate / 10) >> 8, (rate / 10) & 0xff] };
}

/** A FLAC file of fixed 4096-sample blocks, each channel a verbatim subframe (no MD5). */
export function flacBytes(channels: Float32Array[], sampleRate: number, bits: 8 | 16 | 24): Uint8Array {
  const total = channels[0].length;
  const head = new BitWriter();
  for (const c of 'fLaC') head.write(c.charCodeAt(0), 8);
  head.write(1, 1); // last metadata block
  head.write(0, 7); // STREAMINFO
  head.write(34, 24);
  head.write(FLAC_BLOCK, 16);
  head.write(FLAC_BLOCK, 16);
  head.write(0, 24);
  head.write(0, 24);
  head.write(sampleRate, 20);
  head.write(channels.length - 1, 3);
  head.write(bits - 1, 5);
  head.write(total, 36);
  for (let i = 0; i < 16; i++) head.write(0, 8);
  const bytes = head.bytes;
  const rateCode = sampleRateCode(sampleRate);
  for (let start = 0, frame = 0; start < total; start += FLAC_BLOCK, frame++) {
    const length = Math.min(FLAC_BLOCK, total - start);
    // Every frame names its rate (libFLAC in WASM decodes frames without the STREAMINFO block).
    const header = [0xff, 0xf8, (0b0111 << 4) | rateCode.code, ((channels.length - 1) << 4) | (FLAC_SAMPLE_SIZE_CODES[bits] << 1), ...frameNumberBytes(frame), (length - 1) >> 8, (length - 1) & 0xff, ...rateCode.tail];
    header.push(crc8(header));
    const body = new BitWriter();
    for (const channel of channels) {
      body.write(0b00000010, 8); // zero pad, VERBATIM, no wasted bits
      for (let i = start; i < start + length; i++) {
        const v = quantised(channel[i], bits);
        body.write(v < 0 ? v + 2 ** bits : v, bits);
      }
    }
    const frameBytes = [...header, ...body.bytes];
    const crc = crc16(frameBytes);
    bytes.push(...frameBytes, crc >> 8, crc & 0xff);
  }
  return Uint8Array.from(bytes);
}

/** An MP3 as LAME writes it for these settings (no gapless tag: its timeline starts with the encoder's delay). */
export async function mp3WithSettings(channels: Float32Array[], sampleRate: number, rate: { bitrateKbps: number } | { vbrQuality: number }): Promise<Uint8Array> {
  const encoder = await createMp3Encoder();
  encoder.configure({ channels: channels.length as 1 | 2, sampleRate, ...('bitrateKbps' in rate ? { bitrate: rate.bitrateKbps as 128 } : { vbrQuality: rate.vbrQuality }) });
  const parts = [encoder.encode(channels).slice(), encoder.finalize().slice()];
  const out = new Uint8Array(parts[0].length + parts[1].length);
  out.set(parts[0]);
  out.set(parts[1], parts[0].length);
  return out;
}
