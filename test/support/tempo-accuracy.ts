// The measures of analysis accuracy on real recordings: tempo Acc1/Acc2 (MIREX) against a reference
// tempo, and whether the peak lies in a 3 s window nearly as loud as the loudest of the track.
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { decodePiece, type Reference } from './soundtracks.ts';

/** Acc1 and Acc2 tolerance: 4% of the reference tempo. */
export const TEMPO_TOLERANCE = 0.04;
/** Acc2 accepts these metrical levels of the reference (octave and 2:3-type errors). */
const ACC2_FACTORS = [1 / 3, 1 / 2, 1, 2, 3];
/** The peak's window may be this many LU below the loudest 3 s. */
export const CLIMAX_TOLERANCE_LU = 3;
/** ffmpeg's ebur128 reports the short-term loudness every 0.1 s, each of the 3 s window ending there. */
const LOUDNESS_STEP_SECONDS = 0.1;
const SHORT_TERM_SECONDS = 3;

export function acc1(estimatedBpm: number, referenceBpm: number): boolean {
  return Math.abs(estimatedBpm - referenceBpm) <= TEMPO_TOLERANCE * referenceBpm;
}

export function acc2(estimatedBpm: number, referenceBpm: number): boolean {
  return ACC2_FACTORS.some((factor) => acc1(estimatedBpm, referenceBpm * factor));
}

/**
 * How many LU the loudest 3 s window containing `peakSeconds` lies below the track's loudest 3 s;
 * with `startingAtPeak`, the window that begins at the peak (the passage the peak opens).
 */
export function peakLoudnessDeficitLu(shortTermLufs: number[], peakSeconds: number, startingAtPeak = false): number {
  let loudest = -Infinity;
  let atPeak = -Infinity;
  shortTermLufs.forEach((lufs, i) => {
    const end = (i + 1) * LOUDNESS_STEP_SECONDS;
    // ffmpeg's first windows are shorter than 3 s (the track's start): not comparable.
    if (end < SHORT_TERM_SECONDS) return;
    loudest = Math.max(loudest, lufs);
    const start = end - SHORT_TERM_SECONDS;
    const counts = startingAtPeak ? Math.abs(start - peakSeconds) < LOUDNESS_STEP_SECONDS / 2 : start <= peakSeconds && peakSeconds <= end;
    if (counts) atPeak = Math.max(atPeak, lufs);
  });
  return loudest - atPeak;
}

export interface PieceResult {
  reference: Reference;
  tempoBpm: number;
  peakSeconds: number;
  deficitLu: number;
  /** The same for the 3 s that start at the peak. */
  openingDeficitLu: number;
  analysisMs: number;
}

/** Our analysis of each piece, measured against its references. */
export function measurePieces(references: Reference[]): PieceResult[] {
  return references.flatMap((reference) => {
    const pcm = decodePiece(reference.file);
    if (!pcm) return [];
    const started = performance.now();
    const analysis = analysePcm(pcm);
    const analysisMs = performance.now() - started;
    const deficitLu = peakLoudnessDeficitLu(reference.shortTermLufs, analysis.peakSeconds);
    const openingDeficitLu = peakLoudnessDeficitLu(reference.shortTermLufs, analysis.peakSeconds, true);
    return [{ reference, tempoBpm: analysis.tempoBpm, peakSeconds: analysis.peakSeconds, deficitLu, openingDeficitLu, analysisMs }];
  });
}

