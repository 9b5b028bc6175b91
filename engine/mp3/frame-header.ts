// MPEG audio frame headers (layer III only: MPEG-1, MPEG-2 and MPEG-2.5).
// Reference: ISO/IEC 11172-3 and 13818-3, header layout AAAAAAAA AAABBCCD EEEEFFGH IIJJKLMM.

export interface FrameHeader {
  version: 1 | 2 | 2.5;
  sampleRate: number;
  bitrateKbps: number;
  channels: 1 | 2;
  /** Bytes of the whole frame, header included. */
  frameBytes: number;
  samplesPerFrame: 1152 | 576;
  /** A 16-bit CRC follows the header (protection bit 0). */
  hasCrc: boolean;
  /** Byte offset, from the frame start, of the side info's end: where a Xing/Info tag would sit. */
  sideInfoEnd: number;
}

/** Samples per MPEG-1 layer III frame: the grid every 44.1 kHz clip and source of ours is cut on. */
export const MPEG1_FRAME_SAMPLES = 1152;

const HEADER_BYTES = 4;
const CRC_BYTES = 2;

/** Side-info bytes of a layer III frame after its header (and CRC): MPEG-1 has two granules per frame, MPEG-2 and 2.5 one. */
function sideInfoBytes(samplesPerFrame: number, channels: 1 | 2): number {
  if (samplesPerFrame === MPEG1_FRAME_SAMPLES) return channels === 1 ? 17 : 32;
  return channels === 1 ? 9 : 17;
}

/** Bytes from a frame's start to its side info's end (header, CRC when present, side info): where its main data area begins. */
export function sideInfoEnd(samplesPerFrame: number, channels: 1 | 2, hasCrc: boolean): number {
  return HEADER_BYTES + (hasCrc ? CRC_BYTES : 0) + sideInfoBytes(samplesPerFrame, channels);
}

/** The most main-data bytes a frame may take from the frames before it (main_data_begin: 9 bits in MPEG-1, 8 in MPEG-2 and 2.5). */
export function maxReservoirBytes(samplesPerFrame: number): number {
  return samplesPerFrame === MPEG1_FRAME_SAMPLES ? 511 : 255;
}

/** MPEG-1 layer III bitrates (kbps) by the header's bitrate index (0: free format). */
export const MPEG1_BITRATES_KBPS = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
/** MPEG-1 sample rates by the header's sample-rate index. */
export const MPEG1_SAMPLE_RATES = [44100, 48000, 32000];
const SAMPLE_RATES: Record<string, number[]> = { '1': MPEG1_SAMPLE_RATES, '2': [22050, 24000, 16000], '2.5': [11025, 12000, 8000] };

/** Bytes of a layer III frame at this bitrate and sample rate, with its padding byte (0 or 1). */
export function frameBytesOf(samplesPerFrame: number, bitrateKbps: number, sampleRate: number, padding: number): number {
  return Math.floor(((samplesPerFrame / 8) * bitrateKbps * 1000) / sampleRate) + padding;
}

/** Parses the 4-byte header at `offset`; undefined if it is not a valid layer III header. */
export function parseFrameHeader(bytes: Uint8Array, offset: number): FrameHeader | undefined {
  if (offset + 4 > bytes.length) return undefined;
  const b1 = bytes[offset + 1];
  const b2 = bytes[offset + 2];
  const b3 = bytes[offset + 3];
  if (bytes[offset] !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const versionBits = (b1 >> 3) & 3;
  if (versionBits === 1) return undefined; // reserved
  if (((b1 >> 1) & 3) !== 1) return undefined; // not layer III
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined; // free format, bad, reserved
  const version = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 2.5;
  const sampleRate = SAMPLE_RATES[String(version)][rateIndex];
  const bitrateKbps = (version === 1 ? MPEG1_BITRATES_KBPS : BITRATES_V2)[bitrateIndex];
  const padding = (b2 >> 1) & 1;
  const channels = b3 >> 6 === 3 ? 1 : 2;
  const hasCrc = (b1 & 1) === 0;
  const samplesPerFrame = version === 1 ? MPEG1_FRAME_SAMPLES : 576;
  const frameBytes = frameBytesOf(samplesPerFrame, bitrateKbps, sampleRate, padding);
  return {
    version,
    sampleRate,
    bitrateKbps,
    channels,
    frameBytes,
    samplesPerFrame,
    hasCrc,
    sideInfoEnd: sideInfoEnd(samplesPerFrame, channels, hasCrc),
  };
}
