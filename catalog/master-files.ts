// Which files of a folder are masters (by extension, case-insensitive), and in which format: by
// their first bytes where those say (a library's files are often named for another format), else
// by the extension. The content is then read as that format and refused with the reason when it
// is not one.
import path from 'node:path';
import { MASTER_FORMATS, type MasterFormat } from '../engine/masters/master-shape.ts';

export function masterFormatOf(file: string): MasterFormat | undefined {
  const extension = path.extname(file).slice(1).toLowerCase();
  return (MASTER_FORMATS as readonly string[]).includes(extension) ? (extension as MasterFormat) : undefined;
}

/** Bytes of an ID3v2 tag's header (and of its footer, when its flags say there is one). */
const ID3_HEADER_BYTES = 10;
const ID3_FOOTER_FLAG = 0x10;

/** Whether `bytes` hold `text` (ASCII) at `at`. */
function holds(bytes: Uint8Array, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * The format the content is in, by its first bytes: RIFF/WAVE, fLaC (after an ID3 tag too), an
 * ID3 tag or an MPEG audio frame's sync; undefined when they say none of these.
 */
export function masterFormatOfContent(bytes: Uint8Array): MasterFormat | undefined {
  if (holds(bytes, 0, 'RIFF') && holds(bytes, 8, 'WAVE')) return 'wav';
  if (holds(bytes, 0, 'fLaC')) return 'flac';
  if (holds(bytes, 0, 'ID3') && bytes.length >= ID3_HEADER_BYTES) {
    // The tag's size: four 7-bit bytes (syncsafe), header and footer not counted.
    const size = ((bytes[6] & 0x7f) << 21) | ((bytes[7] & 0x7f) << 14) | ((bytes[8] & 0x7f) << 7) | (bytes[9] & 0x7f);
    const after = ID3_HEADER_BYTES + size + (bytes[5] & ID3_FOOTER_FLAG ? ID3_HEADER_BYTES : 0);
    return holds(bytes, after, 'fLaC') ? 'flac' : 'mp3';
  }
  if (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0) return 'mp3';
  return undefined;
}
