// Analysis <-> bytes: a JSON header of the scalar fields followed by the float arrays, so the
// catalog can persist it per track and the pool can move it between threads without copying.
import type { Analysis } from './analyse.ts';
import { ANALYSIS_VERSION } from './version.ts';

const FLOAT_ARRAYS = ['beatTimesSeconds', 'barTimesSeconds', 'sectionTimesSeconds', 'rms', 'onset', 'barFeatures', 'gridBeatTimesSeconds', 'gridBarTimesSeconds', 'gridBarFeatures', 'gridSectionTimesSeconds', 'waveformPeaks'] as const;
const MAGIC = 0x4d4c4131; // "MLA1"

export function serialiseAnalysis(analysis: Analysis): Uint8Array {
  const scalars: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(analysis)) if (!(FLOAT_ARRAYS as readonly string[]).includes(name)) scalars[name] = value;
  const lengths = FLOAT_ARRAYS.map((name) => analysis[name].length);
  const header = new TextEncoder().encode(JSON.stringify({ scalars, lengths }));
  const headerPadded = Math.ceil((8 + header.length) / 4) * 4; // typed arrays need 4-byte alignment
  const total = headerPadded + FLOAT_ARRAYS.reduce((n, name) => n + analysis[name].byteLength, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC);
  view.setUint32(4, header.length);
  out.set(header, 8);
  let offset = headerPadded;
  for (const name of FLOAT_ARRAYS) {
    out.set(new Uint8Array(analysis[name].buffer, analysis[name].byteOffset, analysis[name].byteLength), offset);
    offset += analysis[name].byteLength;
  }
  return out;
}

/** The JSON header of serialised analysis bytes, and where it ends; undefined for other bytes. */
function readHeader(bytes: Uint8Array): { scalars: Record<string, unknown>; lengths: number[]; headerLength: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 || view.getUint32(0) !== MAGIC) return undefined;
  const headerLength = view.getUint32(4);
  return { ...JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))), headerLength };
}

export function deserialiseAnalysis(bytes: Uint8Array): Analysis {
  const header = readHeader(bytes);
  if (!header) throw new Error('not a serialised analysis');
  const { scalars, lengths, headerLength } = header;
  if (scalars.version !== ANALYSIS_VERSION) throw new Error(`analysis version ${scalars.version}, expected ${ANALYSIS_VERSION}`);
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  let offset = Math.ceil((8 + headerLength) / 4) * 4;
  const arrays: Record<string, Float32Array> = {};
  FLOAT_ARRAYS.forEach((name, i) => {
    arrays[name] = new Float32Array(aligned.buffer, aligned.byteOffset + offset, lengths[i]);
    offset += 4 * lengths[i];
  });
  return { ...scalars, ...arrays } as unknown as Analysis;
}

/** Whether the bytes are an analysis this engine made (ANALYSIS_VERSION): one of an older engine, or no analysis at all, is not. */
export function isCurrentAnalysis(bytes: Uint8Array): boolean {
  return Number(readHeader(bytes)?.scalars.version) === ANALYSIS_VERSION;
}
