// How strongly each beat is struck: the onset at the beat (spectral flux, as onset.ts reads it) and
// how loud the sound it starts is. A bar's first beat is often the one played hardest. Read at the
// beats' frames alone: a few frames per beat, not the whole spectrogram again.
import { standardised } from './standardised.ts';

/** Frames each side of a beat's frame searched for its onset (one frame is about 11.6 ms): the tracker's beats sit within a frame or two of the onset. */
const ONSET_SEARCH_FRAMES = 2;
/** Floor under RMS before its logarithm (linear full-scale amplitude): about -80 dBFS, so silence does not dominate. */
const RMS_FLOOR = 1e-4;

/** Spectral flux of frame f: the mean rise of the log band energies from the frame before (onset.ts's spectralFlux at one frame). */
function fluxAt(logBands: Float32Array, bands: number, f: number): number {
  if (f < 1) return 0;
  let sum = 0;
  for (let k = 0; k < bands; k++) sum += Math.max(0, logBands[f * bands + k] - logBands[(f - 1) * bands + k]);
  return sum / bands;
}

/**
 * Per beat, the largest spectral flux (log-energy rise) within ONSET_SEARCH_FRAMES of it, plus the
 * log RMS (natural log) of the first half of its span, both taken relative to their mean over the
 * beats, each in units of its own standard deviation over the beats, and summed: 0 for an average
 * beat.
 */
export function accentAtBeats(beatFrames: Int32Array, logBands: Float32Array, bands: number, rms: Float32Array, frames: number): Float64Array {
  const n = beatFrames.length;
  const struck = new Float64Array(n);
  const loud = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const at = beatFrames[i];
    for (let f = Math.max(0, at - ONSET_SEARCH_FRAMES); f <= Math.min(frames - 1, at + ONSET_SEARCH_FRAMES); f++) struck[i] = Math.max(struck[i], fluxAt(logBands, bands, f));
    const span = i + 1 < n ? beatFrames[i + 1] - at : i > 0 ? at - beatFrames[i - 1] : 1;
    const to = Math.min(frames, at + Math.max(1, Math.round(span / 2)));
    let sum = 0;
    for (let f = at; f < to; f++) sum += rms[f];
    loud[i] = Math.log(Math.max(RMS_FLOOR, sum / Math.max(1, to - at)));
  }
  const a = standardised(struck);
  const b = standardised(loud);
  return a.map((v, i) => v + b[i]);
}
