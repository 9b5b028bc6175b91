// Loudness and the energy level of spec 2.6 (low: calm/ambient, medium, high: energetic/driving).

export type EnergyLevel = 'low' | 'medium' | 'high';

/** Mean RMS over the non-silent frames, in dB full scale. */
export function loudnessDbfs(rms: Float32Array): number {
  let sum = 0;
  let count = 0;
  for (const value of rms) {
    if (value > 1e-4) {
      sum += value * value;
      count++;
    }
  }
  return count ? 10 * Math.log10(sum / count) : -120;
}

/** Onsets per second: frames where the onset strength is a local peak above a floor. */
export function onsetRatePerSecond(onset: Float32Array, frameRate: number): number {
  let max = 0;
  for (const v of onset) max = Math.max(max, v);
  const floor = 0.1 * max;
  let peaks = 0;
  for (let i = 1; i < onset.length - 1; i++) if (onset[i] > floor && onset[i] >= onset[i - 1] && onset[i] > onset[i + 1]) peaks++;
  return onset.length ? (peaks * frameRate) / onset.length : 0;
}

/** Thresholds calibrated on the demo catalog's rendered tracks (catalog/ ground truth). */
export function energyLevel(loudnessDb: number, onsetsPerSecond: number, tempoBpm: number): EnergyLevel {
  const drive = loudnessDb + 4 * Math.log2(Math.max(1, onsetsPerSecond)) + 6 * Math.log2(tempoBpm / 120);
  if (drive < -19) return 'low';
  if (drive < -11) return 'medium';
  return 'high';
}
