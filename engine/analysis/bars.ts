// Downbeats (first beat of each bar), assuming 4/4: the phase whose beats carry the most bass
// onsets, overall accent and harmonic change, which is where kicks, accents and chord changes fall.

export const BEATS_PER_BAR = 4;

/** Index (0..3) of the first downbeat among the beats. */
export function downbeatPhase(beatFrames: Int32Array, bassOnset: Float32Array, onset: Float32Array, chromaFrames: Float32Array): number {
  if (beatFrames.length < BEATS_PER_BAR * 2) return 0;
  const chromaChange = new Float64Array(beatFrames.length);
  for (let i = 0; i + 1 < beatFrames.length; i++) chromaChange[i] = chromaDistance(chromaFrames, beatFrames[i], beatFrames[i + 1]);
  const around = (values: Float32Array, f: number) => Math.max(values[f] ?? 0, values[f + 1] ?? 0, values[f - 1] ?? 0);
  const bassAtBeat = Array.from(beatFrames, (f) => around(bassOnset, f));
  const accentAtBeat = Array.from(beatFrames, (f) => around(onset, f));
  const bassMax = Math.max(...bassAtBeat) || 1;
  const accentMax = Math.max(...accentAtBeat) || 1;
  const changeMax = Math.max(...chromaChange) || 1;
  let best = 0;
  let bestScore = -Infinity;
  for (let phase = 0; phase < BEATS_PER_BAR; phase++) {
    let score = 0;
    let count = 0;
    for (let i = phase; i < beatFrames.length; i += BEATS_PER_BAR) {
      score += bassAtBeat[i] / bassMax + accentAtBeat[i] / accentMax + chromaChange[i] / changeMax;
      count++;
    }
    if (score / count > bestScore) {
      bestScore = score / count;
      best = phase;
    }
  }
  return best;
}

/** Cosine distance between the mean chroma of frames [from, to) and the frames just before `from`. */
function chromaDistance(chromaFrames: Float32Array, from: number, to: number): number {
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
