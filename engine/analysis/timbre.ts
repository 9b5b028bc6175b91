// Timbre statistics: the track's average spectral shape, as TIMBRE_GROUPS numbers (the mean log
// band energy of groups of adjacent bands), centred and scaled to unit length so loudness does not
// count, only where the energy sits (bass-heavy, bright, hollow). Two tracks' shapes compare by
// their dot product (cosine): search uses it for "similar tracks".
export const TIMBRE_GROUPS = 12;

/** The spectral shape of a log-band spectrogram (frames x bands, row-major). */
export function timbreShape(logBands: Float32Array, bands: number, frames: number): number[] {
  const perGroup = bands / TIMBRE_GROUPS;
  const shape = new Array<number>(TIMBRE_GROUPS).fill(0);
  for (let f = 0; f < frames; f++) {
    for (let b = 0; b < bands; b++) shape[Math.min(TIMBRE_GROUPS - 1, Math.floor(b / perGroup))] += logBands[f * bands + b];
  }
  const mean = shape.reduce((a, b) => a + b, 0) / TIMBRE_GROUPS;
  const centred = shape.map((v) => v - mean);
  const length = Math.hypot(...centred);
  // Rounded: the shape is stored as JSON and in a real[] column; 3 decimals are far finer than it is stable.
  return centred.map((v) => (length > 0 ? Math.round((1000 * v) / length) / 1000 : 0));
}
