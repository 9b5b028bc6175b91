// Downbeats (first beat of each bar): the beats where the harmony changes, as chords change on the
// bar line, in bars of the piece's own meter (meter.ts). Measured on the tracker modules of
// tecnoballz-data, whose scores give the true bars: at the true beats, harmonic change peaks on the
// true downbeat in 13 of 14 modules, bass onsets in 8, the overall accent in 4 (melodies and drums
// accent other beats as often); so the accent helps tell the meter but the harmony places the bars.
import type { Spectrogram } from './spectrogram.ts';
import { downbeatPath } from './bar-path.ts';
import { accentAtBeats } from './beat-accent.ts';
import { beatsPerBar, DEFAULT_BEATS_PER_BAR } from './meter.ts';

/** The bar length assumed where a piece is too short to tell its meter, and by the tempo estimate, which comes before the beats. */
export const BEATS_PER_BAR = DEFAULT_BEATS_PER_BAR;
/**
 * Cost of restarting the bar on another beat, in units of the track's largest harmonic change at a
 * beat: the bar phase moves only where about two bars' worth of changes say so.
 */
const PHASE_CHANGE_COST = 2;

/** What the bars are read from: the spectrogram's (spectrogram.ts) chroma, band energies and RMS. */
export type BarSpectrogram = Pick<Spectrogram, 'chromaFrames' | 'logBands' | 'bands' | 'rms' | 'frames'>;

/** The harmonic change each beat brings (chroma cosine distance to the span before it), relative to the track's largest (0..1). */
function harmonicChangeAtBeats(beatFrames: Int32Array, chromaFrames: Float32Array): Float64Array {
  const change = new Float64Array(beatFrames.length);
  for (let i = 0; i + 1 < beatFrames.length; i++) change[i] = chromaDistance(chromaFrames, beatFrames[i], beatFrames[i + 1]);
  const largest = Math.max(...change) || 1;
  return change.map((c) => c / largest);
}

/**
 * Which beats are downbeats: bars of the piece's meter (meter.ts, from the harmonic change and
 * accent at its beats) whose phase is tracked (bar-path.ts) to put the downbeats on the largest
 * harmonic changes (above the track's mean), restarting the bar elsewhere at PHASE_CHANGE_COST.
 * Pieces too short for two bars are cut into bars of BEATS_PER_BAR from their first beat.
 */
export function downbeatIndices(beatFrames: Int32Array, spec: BarSpectrogram): number[] {
  const n = beatFrames.length;
  if (n < BEATS_PER_BAR * 2) return Array.from({ length: Math.ceil(n / BEATS_PER_BAR) }, (_, i) => i * BEATS_PER_BAR);
  const change = harmonicChangeAtBeats(beatFrames, spec.chromaFrames);
  const meter = beatsPerBar(change, accentAtBeats(beatFrames, spec.logBands, spec.bands, spec.rms, spec.frames));
  const mean = change.reduce((sum, c) => sum + c, 0) / n;
  return downbeatPath(change.map((c) => c - mean), meter, PHASE_CHANGE_COST);
}

/** Cosine distance between the mean chroma of frames [from, to) and the frames just before `from`. */
export function chromaDistance(chromaFrames: Float32Array, from: number, to: number): number {
  const before = new Float64Array(12);
  const after = new Float64Array(12);
  const span = Math.max(1, to - from);
  for (let f = Math.max(0, from - span); f < from; f++) for (let p = 0; p < 12; p++) before[p] += chromaFrames[f * 12 + p] ?? 0;
  for (let f = from; f < to; f++) for (let p = 0; p < 12; p++) after[p] += chromaFrames[f * 12 + p] ?? 0;
  let dot = 0, na = 0, nb = 0;
  for (let p = 0; p < 12; p++) {
    dot += before[p] * after[p];
    na += before[p] * before[p];
    nb += after[p] * after[p];
  }
  return na > 0 && nb > 0 ? 1 - dot / Math.sqrt(na * nb) : 0;
}
