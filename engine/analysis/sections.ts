// Section boundaries: bars where the music changes, found as peaks of novelty between the
// bar-level features (band energies) of the bars before and after each bar line (Foote-like).

const CONTEXT_BARS = 4;
const MIN_SECTION_BARS = 4;

/** Indices into `barFrames` of bars that start a new section. */
export function sectionStartBars(barFrames: Int32Array, logBands: Float32Array, bands: number, frames: number): Int32Array {
  const bars = barFrames.length;
  if (bars < CONTEXT_BARS * 2 + 1) return new Int32Array(0);
  const features = new Float64Array(bars * bands);
  for (let b = 0; b < bars; b++) {
    const from = barFrames[b];
    const to = b + 1 < bars ? barFrames[b + 1] : Math.min(frames, from + (barFrames[b] - barFrames[b - 1]));
    const span = Math.max(1, to - from);
    for (let f = from; f < to && f < frames; f++) for (let k = 0; k < bands; k++) features[b * bands + k] += logBands[f * bands + k] / span;
  }
  const novelty = new Float64Array(bars);
  for (let b = CONTEXT_BARS; b <= bars - CONTEXT_BARS; b++) {
    let distance = 0;
    for (let k = 0; k < bands; k++) {
      let before = 0, after = 0;
      for (let j = 1; j <= CONTEXT_BARS; j++) {
        before += features[(b - j) * bands + k];
        after += features[(b + j - 1) * bands + k];
      }
      distance += ((after - before) / CONTEXT_BARS) ** 2;
    }
    novelty[b] = Math.sqrt(distance);
  }
  const values = Array.from(novelty).filter((v) => v > 0);
  const mean = values.reduce((a, v) => a + v, 0) / Math.max(1, values.length);
  const std = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / Math.max(1, values.length));
  const threshold = mean + 0.5 * std;
  const starts: number[] = [];
  const order = Array.from(novelty.keys()).sort((a, b) => novelty[b] - novelty[a]);
  for (const b of order) {
    if (novelty[b] < threshold) break;
    if (starts.every((s) => Math.abs(s - b) >= MIN_SECTION_BARS)) starts.push(b);
  }
  return Int32Array.from(starts.sort((a, b) => a - b));
}
