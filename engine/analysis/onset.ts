// Onset strength: spectral flux of the log band energies (positive changes only), per frame.

/** Frames each side of a frame whose mean flux is taken away from it (onsetOfFlux). */
const ONSET_MEAN_RADIUS = 16;

/** Onset strength from spectral flux (units: log-energy change): its local mean (ONSET_MEAN_RADIUS frames each side) taken away. */
export function onsetOfFlux(flux: Float32Array): Float32Array {
  return subtractLocalMean(flux, ONSET_MEAN_RADIUS);
}

/** Spectral flux per frame: the mean rise of the log band energies from the frame before. */
export function spectralFlux(logBands: Float32Array, bands: number, frames: number): Float32Array {
  const flux = new Float32Array(frames);
  for (let f = 1; f < frames; f++) {
    let sum = 0;
    for (let k = 0; k < bands; k++) {
      const rise = logBands[f * bands + k] - logBands[(f - 1) * bands + k];
      if (rise > 0) sum += rise;
    }
    flux[f] = sum / bands;
  }
  return flux;
}

/** Removes a moving average (2 * radius + 1 frames) and keeps the positive part: peaks stand out from a steady texture. */
function subtractLocalMean(values: Float32Array, radius: number): Float32Array {
  const out = new Float32Array(values.length);
  let sum = 0;
  let count = 0;
  for (let i = 0; i < Math.min(radius, values.length); i++) {
    sum += values[i];
    count++;
  }
  for (let i = 0; i < values.length; i++) {
    const add = i + radius;
    if (add < values.length) {
      sum += values[add];
      count++;
    }
    const drop = i - radius - 1;
    if (drop >= 0) {
      sum -= values[drop];
      count--;
    }
    out[i] = Math.max(0, values[i] - sum / count);
  }
  return out;
}
