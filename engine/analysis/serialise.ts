// Analysis <-> bytes: a JSON header of the scalar fields followed by the typed arrays, so the
// catalog can persist it per track and the pool can move it between threads without copying.
import { ANALYSIS_VERSION, type Analysis } from './analyse.ts';

// New arrays go last: one absent from a stored analysis reads as empty (its length is missing).
const ARRAYS = ['beatTimesSeconds', 'barTimesSeconds', 'sectionTimesSeconds', 'rms', 'onset', 'barFeatures', 'waveformPeaks'] as const;
const MAGIC = 0x4d4c4131; // "MLA1"

export function serialiseAnalysis(analysis: Analysis): Uint8Array {
  const scalars: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(analysis)) if (!(ARRAYS as readonly string[]).includes(name)) scalars[name] = value;
  const lengths = ARRAYS.map((name) => analysis[name].length);
  const header = new TextEncoder().encode(JSON.stringify({ scalars, lengths }));
  const headerPadded = Math.ceil((8 + header.length) / 4) * 4; // typed arrays need 4-byte alignment
  const total = headerPadded + lengths.reduce((n, l) => n + 4 * l, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC);
  view.setUint32(4, header.length);
  out.set(header, 8);
  let offset = headerPadded;
  for (const name of ARRAYS) {
    out.set(new Uint8Array(analysis[name].buffer, analysis[name].byteOffset, analysis[name].byteLength), offset);
    offset += analysis[name].byteLength;
  }
  return out;
}

export function deserialiseAnalysis(bytes: Uint8Array): Analysis {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 || view.getUint32(0) !== MAGIC) throw new Error('not a serialised analysis');
  const headerLength = view.getUint32(4);
  const { scalars, lengths } = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  if (scalars.version !== ANALYSIS_VERSION) throw new Error(`analysis version ${scalars.version}, expected ${ANALYSIS_VERSION}`);
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  let offset = Math.ceil((8 + headerLength) / 4) * 4;
  const arrays: Record<string, Float32Array> = {};
  ARRAYS.forEach((name, i) => {
    const length = lengths[i] ?? 0; // an array newer than the stored analysis
    arrays[name] = new Float32Array(aligned.buffer, aligned.byteOffset + offset, length);
    offset += 4 * length;
  });
  return { ...scalars, ...arrays } as Analysis;
}

/** The version a serialised analysis was made with (0 when the bytes are not an analysis). */
export function serialisedAnalysisVersion(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 || view.getUint32(0) !== MAGIC) return 0;
  const headerLength = view.getUint32(4);
  const { scalars } = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  return Number(scalars.version) || 0;
}
