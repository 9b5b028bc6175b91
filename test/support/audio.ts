// Helpers for audio tests: encode synthetic signals to real MP3 bytes, decode them back, and
// score beat tracking (F-measure), all through the engine's own public functions.
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';
import { indexFrames } from '../../engine/mp3/frame-index.ts';
import { decodeAll, type Pcm } from '../../engine/mp3/decode.ts';

export async function mp3Of(mono: Float32Array): Promise<Uint8Array> {
  return encodeGaplessMp3(mono, mono);
}

export async function decodeMp3(bytes: Uint8Array): Promise<Pcm> {
  return decodeAll(bytes, indexFrames(bytes));
}

/** Beat-tracking tolerance (MIREX): an estimated beat within this of a reference beat is on it. */
export const BEAT_TOLERANCE_SECONDS = 0.07;

/** A piece's beats count as tracked right from this beat F-measure on: the benches judge its bars and seams apart on such pieces. */
export const TRACKED_BEAT_F = 0.9;

/** How many estimated beats lie within `tolerance` of a reference beat, each reference beat matched once. */
export function matchedBeats(estimated: ArrayLike<number>, reference: number[], tolerance = BEAT_TOLERANCE_SECONDS): number {
  const used = new Set<number>();
  let hits = 0;
  for (const r of reference) {
    for (let i = 0; i < estimated.length; i++) {
      if (!used.has(i) && Math.abs(estimated[i] - r) <= tolerance) {
        used.add(i);
        hits++;
        break;
      }
    }
  }
  return hits;
}

/** Beat-tracking F-measure with a +-tolerance window (MIREX style: each reference beat matched once). */
export function beatFMeasure(estimated: ArrayLike<number>, reference: number[], tolerance = BEAT_TOLERANCE_SECONDS): number {
  const hits = matchedBeats(estimated, reference, tolerance);
  const precision = estimated.length ? hits / estimated.length : 0;
  const recall = reference.length ? hits / reference.length : 0;
  return precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
}
