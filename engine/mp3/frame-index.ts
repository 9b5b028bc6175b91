// A byte offset per MPEG audio frame: what range decoding and clip cutting stand on.
// Skips ID3v2 tags and the Xing/Info frame, tolerates junk between frames, and refuses input
// that does not contain a believable run of frames.
import { EngineError } from '../errors.ts';
import { parseFrameHeader, type FrameHeader } from './frame-header.ts';
import { readGaplessTag, DECODER_DELAY, type GaplessInfo } from './gapless-tag.ts';

export interface FrameIndex {
  sampleRate: number;
  channels: 1 | 2;
  samplesPerFrame: number;
  /** Byte offset of each audio frame. */
  offsets: Uint32Array;
  /** Byte length of each audio frame. */
  sizes: Uint16Array;
  /** Samples to drop at the start of the raw decoded stream (encoder + decoder delay), from the LAME tag. */
  startSkip: number;
  /** Playable samples per channel: raw samples less delay and padding. */
  totalSamples: number;
  gapless: GaplessInfo | undefined;
}

/** Frames of agreement needed before we believe a sync word is a real stream start. */
const CONFIRM_FRAMES = 3;

function id3v2Size(bytes: Uint8Array, offset: number): number {
  if (offset + 10 > bytes.length || bytes[offset] !== 0x49 || bytes[offset + 1] !== 0x44 || bytes[offset + 2] !== 0x33) return 0;
  const size = ((bytes[offset + 6] & 0x7f) << 21) | ((bytes[offset + 7] & 0x7f) << 14) | ((bytes[offset + 8] & 0x7f) << 7) | (bytes[offset + 9] & 0x7f);
  const footer = bytes[offset + 5] & 0x10 ? 10 : 0;
  return 10 + size + footer;
}

function sameStream(a: FrameHeader, b: FrameHeader): boolean {
  return a.version === b.version && a.sampleRate === b.sampleRate;
}

/** True if `count` consecutive frames of the same stream start at `offset` (or the data ends cleanly). */
function confirmed(bytes: Uint8Array, offset: number, first: FrameHeader, count: number): boolean {
  let p = offset;
  for (let i = 0; i < count; i++) {
    const header = parseFrameHeader(bytes, p);
    if (!header || !sameStream(first, header)) return p >= bytes.length && i > 0;
    p += header.frameBytes;
  }
  return true;
}

export function indexFrames(bytes: Uint8Array): FrameIndex {
  if (bytes.length === 0) throw new EngineError('invalid_audio', 'empty input: no MP3 data');
  let p = 0;
  for (let tag = id3v2Size(bytes, p); tag > 0; tag = id3v2Size(bytes, p)) p += tag;

  const offsets: number[] = [];
  const sizes: number[] = [];
  let first: FrameHeader | undefined;
  let gapless: (GaplessInfo & { hasLameTag: boolean }) | undefined;
  let junk = 0;
  while (p + 4 <= bytes.length) {
    const header = parseFrameHeader(bytes, p);
    const believable = header && (first ? sameStream(first, header) && (junk === 0 || confirmed(bytes, p, first, CONFIRM_FRAMES)) : confirmed(bytes, p, header, CONFIRM_FRAMES));
    if (!header || !believable) {
      p += 1;
      junk += 1;
      continue;
    }
    if (p + header.frameBytes > bytes.length) break; // truncated last frame
    junk = 0;
    if (!first) {
      first = header;
      gapless = readGaplessTag(bytes, p, header);
      if (gapless) {
        p += header.frameBytes;
        continue;
      }
    }
    offsets.push(p);
    sizes.push(header.frameBytes);
    p += header.frameBytes;
  }
  if (!first || offsets.length === 0) throw new EngineError('invalid_audio', 'not an MP3 file: no MPEG layer III audio frames found');

  const spf = first.samplesPerFrame;
  const rawSamples = offsets.length * spf;
  const useTag = gapless?.hasLameTag === true && gapless.frameCount === offsets.length;
  const startSkip = useTag ? gapless!.encoderDelay + DECODER_DELAY : 0;
  const endTrim = useTag ? Math.max(0, gapless!.padding - DECODER_DELAY) : 0;
  return {
    sampleRate: first.sampleRate,
    channels: first.channels,
    samplesPerFrame: spf,
    offsets: Uint32Array.from(offsets),
    sizes: Uint16Array.from(sizes),
    startSkip,
    totalSamples: Math.max(0, rawSamples - startSkip - endTrim),
    gapless: gapless ? { frameCount: gapless.frameCount, encoderDelay: gapless.encoderDelay, padding: gapless.padding } : undefined,
  };
}
