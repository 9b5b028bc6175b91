// Each frame's spectrum in a few coarse bands, stored small: enough to tell what a clip hears
// where two parts join (plan/join-onset.ts), a frame of one part's spectrum against the next's.

/** Coarse bands per frame: the spectrogram's log bands pooled in equal groups (48 / 16 = 3). */
export const BAND_LEVELS = 16;
/**
 * Stored steps per unit of log band energy (log1p, spectrogram.ts): a level is kept as a byte,
 * so up to 255 / 16 (~16, far above the loudest band's ~12), to 1/32 either way.
 */
export const BAND_LEVEL_STEPS = 16;

/** The log energies of the spectrogram's bands pooled into BAND_LEVELS per frame (energies summed, not logs), as bytes. */
export function bandLevels(logBands: Float32Array, bands: number, frames: number): Uint8Array {
  const group = bands / BAND_LEVELS;
  const levels = new Uint8Array(frames * BAND_LEVELS);
  for (let f = 0; f < frames; f++) {
    for (let k = 0; k < BAND_LEVELS; k++) {
      let energy = 0;
      for (let j = 0; j < group; j++) energy += Math.expm1(logBands[f * bands + k * group + j]);
      levels[f * BAND_LEVELS + k] = Math.min(255, Math.round(BAND_LEVEL_STEPS * Math.log1p(energy / group)));
    }
  }
  return levels;
}
