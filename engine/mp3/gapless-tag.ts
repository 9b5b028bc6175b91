// The Xing/Info frame with its LAME extension: frame count, byte count, seek table, and the
// encoder delay and padding that let gapless decoders (mpg123, ffmpeg) return exactly the
// encoded samples. We read it from ingested files and write it in front of every clip we encode.
import { type FrameHeader, frameBytesOf, MPEG1_BITRATES_KBPS, MPEG1_FRAME_SAMPLES, MPEG1_SAMPLE_RATES } from './frame-header.ts';

export interface GaplessInfo {
  /** Audio frames, not counting the tag frame. */
  frameCount: number;
  /** Samples the encoder added at the start (decoders also skip their own 529). */
  encoderDelay: number;
  /** Samples added at the end to fill the last frame. */
  padding: number;
}

/** The delay of the mpg123/LAME synthesis filterbank that gapless decoders add to the encoder delay. */
export const DECODER_DELAY = 529;

const XING_FLAG_FRAMES = 1;
const XING_FLAG_BYTES = 2;
const XING_FLAG_TOC = 4;
const XING_FLAG_QUALITY = 8;

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length));
}

/** Reads a Xing/Info tag from the frame at `offset`; undefined if the frame is an audio frame. */
export function readGaplessTag(bytes: Uint8Array, offset: number, header: FrameHeader): (GaplessInfo & { hasLameTag: boolean }) | undefined {
  let p = offset + header.sideInfoEnd;
  const id = ascii(bytes, p, 4);
  if (id !== 'Xing' && id !== 'Info') return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const flags = view.getUint32(p + 4);
  p += 8;
  let frameCount = 0;
  if (flags & XING_FLAG_FRAMES) {
    frameCount = view.getUint32(p);
    p += 4;
  }
  if (flags & XING_FLAG_BYTES) p += 4;
  if (flags & XING_FLAG_TOC) p += 100;
  if (flags & XING_FLAG_QUALITY) p += 4;
  const encoder = ascii(bytes, p, 4);
  if (p + 24 <= offset + header.frameBytes && /^(LAME|Lavf|Lavc|L3.9|GOGO)/.test(encoder)) {
    const packed = (bytes[p + 21] << 16) | (bytes[p + 22] << 8) | bytes[p + 23];
    return { frameCount, encoderDelay: packed >> 12, padding: packed & 0xfff, hasLameTag: true };
  }
  return { frameCount, encoderDelay: 0, padding: 0, hasLameTag: false };
}

/** CRC-16 (polynomial 0x8005, reflected), as the LAME tag uses for its own checksum. */
function crc16(bytes: Uint8Array, end: number, crc = 0): number {
  for (let i = 0; i < end; i++) {
    crc ^= bytes[i];
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc & 0xffff;
}

/**
 * Builds an "Info" frame (CBR) for MPEG-1 layer III stereo at the given bitrate and sample rate:
 * the header of an audio frame, empty side info, the Xing fields, and a LAME tag with delay and padding.
 * `audioBytes` is the size of the audio frames that follow; `frameOffsets` their offsets from the
 * first audio frame (for the seek table).
 */
export function buildInfoFrame(options: {
  sampleRate: 44100 | 48000 | 32000;
  bitrateKbps: number;
  info: GaplessInfo;
  audioBytes: number;
  frameOffsets: ArrayLike<number>;
}): Uint8Array {
  const rateIndex = MPEG1_SAMPLE_RATES.indexOf(options.sampleRate);
  const bitrateIndex = MPEG1_BITRATES_KBPS.indexOf(options.bitrateKbps);
  if (rateIndex < 0 || bitrateIndex <= 0) throw new Error('Info frame: unsupported sample rate or bitrate');
  const frameBytes = frameBytesOf(MPEG1_FRAME_SAMPLES, options.bitrateKbps, options.sampleRate, 0);
  const frame = new Uint8Array(frameBytes);
  const view = new DataView(frame.buffer);
  // MPEG-1, layer III, no CRC; bitrate, rate, no padding; joint stereo.
  frame.set([0xff, 0xfb, (bitrateIndex << 4) | (rateIndex << 2), 0x44], 0);
  let p = 4 + 32; // header + stereo side info (zeros)
  frame.set([73, 110, 102, 111], p); // "Info": constant bitrate
  view.setUint32(p + 4, XING_FLAG_FRAMES | XING_FLAG_BYTES | XING_FLAG_TOC | XING_FLAG_QUALITY);
  const { frameCount, encoderDelay, padding } = options.info;
  const totalBytes = frameBytes + options.audioBytes;
  view.setUint32(p + 8, frameCount);
  view.setUint32(p + 12, totalBytes);
  for (let i = 0; i < 100; i++) {
    // Seek table: byte position (of 256) of the frame at i% of the duration.
    const frameIndex = Math.min(frameCount - 1, Math.floor((i / 100) * frameCount));
    const position = frameCount > 0 ? frameBytes + options.frameOffsets[Math.max(0, frameIndex)] : 0;
    frame[p + 16 + i] = Math.min(255, Math.floor((position / totalBytes) * 256));
  }
  view.setUint32(p + 116, 100); // quality
  p += 120;
  frame.set(Array.from('LAME3.100', (c) => c.charCodeAt(0)), p);
  frame[p + 9] = 0x01; // tag revision 0, method 1 = CBR
  frame[p + 10] = 170; // lowpass / 100 Hz (17 kHz, LAME's default at 128 kbps)
  frame[p + 20] = Math.min(255, options.bitrateKbps);
  frame[p + 21] = encoderDelay >> 4;
  frame[p + 22] = ((encoderDelay & 0x0f) << 4) | (padding >> 8);
  frame[p + 23] = padding & 0xff;
  view.setUint32(p + 28, totalBytes); // music length
  view.setUint16(p + 34, crc16(frame, 190));
  return frame;
}
