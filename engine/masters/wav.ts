// A WAV file (RIFF/WAVE) to PCM: 16-, 24- and 32-bit integer PCM and 32-bit float, plain or
// WAVE_FORMAT_EXTENSIBLE. Only the fmt and data chunks are read; others are skipped.
// A data chunk that claims more bytes than the file holds is refused, not read as far as it
// goes: its header lies, so the file was cut short (or written by a tool that never finished it),
// and a track that ends early is a damaged master, not one to sell clips of.
import { EngineError } from '../errors.ts';
import type { Pcm } from '../mp3/decode.ts';
import { checkMasterShape } from './master-shape.ts';

const FORMAT_PCM = 1;
const FORMAT_FLOAT = 3;
const FORMAT_EXTENSIBLE = 0xfffe;
/** RIFF chunk header: a four-letter id and a little-endian 32-bit size. */
const CHUNK_HEADER_BYTES = 8;
/** fmt chunk bytes that hold the fields we read (tag, channels, rate, byte rate, block align, bits). */
const FMT_BYTES = 16;
/** Offset of the sub-format's tag in a WAVE_FORMAT_EXTENSIBLE fmt chunk. */
const EXTENSIBLE_SUBFORMAT_OFFSET = 24;

function fourCc(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3]);
}

function invalid(message: string): EngineError {
  return new EngineError('invalid_audio', `not a usable WAV: ${message}`);
}

interface WavFormat {
  float: boolean;
  channels: number;
  sampleRate: number;
  bits: number;
  blockAlign: number;
}

function readFormat(view: DataView, at: number, size: number): WavFormat {
  if (size < FMT_BYTES) throw invalid(`fmt chunk of ${size} bytes`);
  let tag = view.getUint16(at, true);
  if (tag === FORMAT_EXTENSIBLE) {
    if (size < EXTENSIBLE_SUBFORMAT_OFFSET + 2) throw invalid('extensible fmt chunk without its sub-format');
    tag = view.getUint16(at + EXTENSIBLE_SUBFORMAT_OFFSET, true);
  }
  const format = { float: tag === FORMAT_FLOAT, channels: view.getUint16(at + 2, true), sampleRate: view.getUint32(at + 4, true), blockAlign: view.getUint16(at + 12, true), bits: view.getUint16(at + 14, true) };
  if (tag !== FORMAT_PCM && tag !== FORMAT_FLOAT) throw invalid(`format tag ${tag} (only PCM and IEEE float are read)`);
  checkMasterShape({ sampleRate: format.sampleRate, channels: format.channels, pcmBits: format.float ? undefined : format.bits });
  const supported = format.float ? format.bits === 32 : [16, 24, 32].includes(format.bits);
  if (!supported) throw invalid(`${format.bits}-bit ${format.float ? 'float' : 'PCM'} (16-, 24- or 32-bit PCM and 32-bit float are read)`);
  if (format.blockAlign !== (format.channels * format.bits) / 8) throw invalid(`block align ${format.blockAlign} does not fit ${format.channels} channels of ${format.bits} bits`);
  return format;
}

/** One sample reader per encoding, scaled to [-1, 1). */
function sampleReader(view: DataView, format: WavFormat): (at: number) => number {
  if (format.float) return (at) => view.getFloat32(at, true);
  if (format.bits === 16) return (at) => view.getInt16(at, true) / 0x8000;
  if (format.bits === 24) return (at) => ((view.getUint8(at) | (view.getUint8(at + 1) << 8) | (view.getInt8(at + 2) << 16)) / 0x800000);
  return (at) => view.getInt32(at, true) / 0x80000000;
}

export function parseWav(bytes: Uint8Array): Pcm {
  if (bytes.length < 12 || fourCc(bytes, 0) !== 'RIFF' || fourCc(bytes, 8) !== 'WAVE') throw invalid('no RIFF/WAVE header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: WavFormat | undefined;
  // The RIFF size is not trusted (streaming writers leave it 0 or wrong): chunks are walked to the file's end.
  for (let at = 12; at + CHUNK_HEADER_BYTES <= bytes.length; ) {
    const id = fourCc(bytes, at);
    const size = view.getUint32(at + 4, true);
    const body = at + CHUNK_HEADER_BYTES;
    if (id === 'fmt ') {
      if (body + size > bytes.length) throw invalid('fmt chunk runs past the end of the file');
      format = readFormat(view, body, size);
    } else if (id === 'data') {
      if (!format) throw invalid('data chunk before the fmt chunk');
      if (body + size > bytes.length) {
        throw invalid(`the header says ${size} bytes of audio but the file holds ${bytes.length - body}: truncated, or its header lies about its length`);
      }
      if (size % format.blockAlign !== 0) throw invalid(`${size} bytes of audio is not a whole number of ${format.blockAlign}-byte sample frames`);
      return samplesOf(view, body, size / format.blockAlign, format);
    }
    at = body + size + (size & 1); // chunks are padded to an even length
  }
  throw invalid(format ? 'no data chunk' : 'no fmt chunk');
}

function samplesOf(view: DataView, start: number, frames: number, format: WavFormat): Pcm {
  const read = sampleReader(view, format);
  const bytesPerSample = format.bits / 8;
  const channels = Array.from({ length: format.channels }, (_, c) => {
    const out = new Float32Array(frames);
    for (let i = 0, at = start + c * bytesPerSample; i < frames; i++, at += format.blockAlign) out[i] = read(at);
    return out;
  });
  // Float samples can be NaN or infinite, which no encoder or analysis can use: one such sample
  // silences a stretch of the encoded clip, many of them the whole track.
  if (format.float) {
    for (const channel of channels) {
      const at = channel.findIndex((x) => !Number.isFinite(x));
      if (at >= 0) throw invalid(`a float sample that is not a number (NaN or infinite) at ${(at / format.sampleRate).toFixed(3)} s`);
    }
  }
  return { sampleRate: format.sampleRate, channels };
}
