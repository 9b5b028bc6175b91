// A FLAC file to PCM with libFLAC in WASM (@wasm-audio-decoders/flac). The STREAMINFO block is read
// first, so a master we refuse (rate, channels, 8-bit) costs no decoding; after decoding, a stream
// that gave fewer samples than STREAMINFO announces is refused as truncated, and one the decoder
// reported errors for as corrupt: neither is a master to sell clips of.
import { FLACDecoder } from '@wasm-audio-decoders/flac';
import { EngineError } from '../errors.ts';
import type { Pcm } from '../mp3/decode.ts';
import { checkMasterShape } from './master-shape.ts';

/** "fLaC", then the first metadata block's 4-byte header, which must be STREAMINFO (type 0). */
const STREAMINFO_OFFSET = 8;
const STREAMINFO_BYTES = 34;

interface StreamInfo {
  sampleRate: number;
  channels: number;
  bits: number;
  /** Samples per channel; 0 when the encoder did not know. */
  totalSamples: number;
}

function invalid(message: string): EngineError {
  return new EngineError('invalid_audio', `not a usable FLAC: ${message}`);
}

function readStreamInfo(bytes: Uint8Array): StreamInfo {
  if (bytes.length < 4 || String.fromCharCode(...bytes.subarray(0, 4)) !== 'fLaC') throw invalid('no "fLaC" signature');
  if (bytes.length < STREAMINFO_OFFSET + STREAMINFO_BYTES || (bytes[4] & 0x7f) !== 0) throw invalid('no STREAMINFO block');
  const s = STREAMINFO_OFFSET;
  // Bytes 10-17 of STREAMINFO: sample rate (20 bits), channels - 1 (3), bits - 1 (5), total samples (36).
  const sampleRate = (bytes[s + 10] << 12) | (bytes[s + 11] << 4) | (bytes[s + 12] >> 4);
  const channels = ((bytes[s + 12] >> 1) & 0x07) + 1;
  const bits = (((bytes[s + 12] & 1) << 4) | (bytes[s + 13] >> 4)) + 1;
  const totalSamples = (bytes[s + 13] & 0x0f) * 2 ** 32 + ((bytes[s + 14] << 24) >>> 0) + (bytes[s + 15] << 16) + (bytes[s + 16] << 8) + bytes[s + 17];
  return { sampleRate, channels, bits, totalSamples };
}

export async function decodeFlac(bytes: Uint8Array): Promise<Pcm> {
  const info = readStreamInfo(bytes);
  checkMasterShape({ sampleRate: info.sampleRate, channels: info.channels, pcmBits: info.bits });
  const decoder = new FLACDecoder();
  try {
    await decoder.ready;
    const decoded = await decoder.decodeFile(bytes);
    if (decoded.errors.length > 0) throw invalid(`corrupt stream (${decoded.errors[0].message})`);
    if (info.totalSamples > 0 && decoded.samplesDecoded < info.totalSamples) {
      throw invalid(`truncated: ${decoded.samplesDecoded} of the ${info.totalSamples} samples its header announces`);
    }
    if (decoded.samplesDecoded === 0) throw invalid('no audio frames');
    const length = info.totalSamples > 0 ? info.totalSamples : decoded.samplesDecoded;
    return { sampleRate: info.sampleRate, channels: decoded.channelData.slice(0, info.channels).map((c) => c.subarray(0, length)) };
  } finally {
    decoder.free();
  }
}
