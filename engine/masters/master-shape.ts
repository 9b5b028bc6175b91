// What a master may be, whatever its container: the rules every format's reader checks before it
// decodes a sample, so a file we will refuse costs no decoding and every format is refused with
// the same words.
import { EngineError } from '../errors.ts';

/** The containers a master may come in; the catalog picks one from the file's extension. */
export const MASTER_FORMATS = ['mp3', 'wav', 'flac'] as const;
export type MasterFormat = (typeof MASTER_FORMATS)[number];

/** The lowest sample rate accepted (Hz): MPEG-2.5's lowest, below which nothing is music. */
export const MIN_MASTER_SAMPLE_RATE_HZ = 8000;
/**
 * The highest sample rate accepted (Hz). Higher rates (88.2, 96, 192 kHz) are refused, not
 * resampled: the issue counts them among bad inputs, and a library holding hi-res masters is
 * asked to deliver its 44.1 or 48 kHz versions, the rates its MP3s are heard at.
 */
export const MAX_MASTER_SAMPLE_RATE_HZ = 48000;
/**
 * Mono or stereo only. A surround master (5.1: 6 channels) is refused, not downmixed: how the
 * centre and the surrounds fold into two channels is a mixing decision the library should make.
 */
export const MAX_MASTER_CHANNELS = 2;
/** PCM below 16 bits (8-bit) is refused: it is not a master, and its noise floor would be heard in every clip. */
export const MIN_PCM_BITS = 16;

export interface MasterShape {
  sampleRate: number;
  channels: number;
  /** Bits per sample of PCM (integer) audio; undefined for MP3 and float. */
  pcmBits?: number;
}

/** Throws invalid_audio naming the first rule `shape` breaks. */
export function checkMasterShape(shape: MasterShape): void {
  if (shape.channels < 1) throw new EngineError('invalid_audio', 'no audio channels');
  if (shape.channels > MAX_MASTER_CHANNELS) {
    throw new EngineError('invalid_audio', `${shape.channels} channels: only mono and stereo masters are accepted (deliver a stereo mix, not surround)`);
  }
  if (shape.sampleRate > MAX_MASTER_SAMPLE_RATE_HZ) {
    throw new EngineError('invalid_audio', `sample rate ${shape.sampleRate} Hz is above ${MAX_MASTER_SAMPLE_RATE_HZ} Hz: deliver a 44.1 or 48 kHz master`);
  }
  if (shape.sampleRate < MIN_MASTER_SAMPLE_RATE_HZ) {
    throw new EngineError('invalid_audio', `sample rate ${shape.sampleRate} Hz is below ${MIN_MASTER_SAMPLE_RATE_HZ} Hz`);
  }
  if (shape.pcmBits !== undefined && shape.pcmBits < MIN_PCM_BITS) {
    throw new EngineError('invalid_audio', `${shape.pcmBits}-bit PCM is not accepted: masters must be 16- or 24-bit PCM or 32-bit float`);
  }
}
