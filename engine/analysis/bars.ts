// Downbeats (first beat of each bar), assuming 4/4: the beats where the harmony changes, as chords
// change on the bar line. Measured on the tracker modules of tecnoballz-data, whose scores give the
// true bars: at the true beats, harmonic change peaks on the true downbeat in 13 of 14 modules,
// bass onsets in 8, the overall accent in 4 (melodies and drums accent other beats as often).

export const BEATS_PER_BAR = 4;
/**
 * Cost of restarting the bar on another beat, in units of the track's largest harmonic change at a
 * beat: the bar phase moves only where about two bars' worth of changes say so.
 */
const PHASE_CHANGE_COST = 2;

/** The harmonic change each beat brings (chroma cosine distance to the span before it), relative to the track's largest (0..1). */
function harmonicChangeAtBeats(beatFrames: Int32Array, chromaFrames: Float32Array): Float64Array {
  const change = new Float64Array(beatFrames.length);
  for (let i = 0; i + 1 < beatFrames.length; i++) change[i] = chromaDistance(chromaFrames, beatFrames[i], beatFrames[i + 1]);
  const largest = Math.max(...change) || 1;
  return change.map((c) => c / largest);
}

/**
 * Which beats are downbeats. Bars run BEATS_PER_BAR beats, but a piece may shift its bar phase
 * (a two-beat bar at a section change, a pattern cut short), so the phase is tracked, not fixed:
 * the path of positions in the bar (Viterbi over beats) that puts the downbeats on the largest
 * harmonic changes (above the track's mean), where continuing the bar is free and restarting it
 * elsewhere costs PHASE_CHANGE_COST.
 */
export function downbeatIndices(beatFrames: Int32Array, chromaFrames: Float32Array): number[] {
  const n = beatFrames.length;
  if (n < BEATS_PER_BAR * 2) return Array.from({ length: Math.ceil(n / BEATS_PER_BAR) }, (_, i) => i * BEATS_PER_BAR);
  const change = harmonicChangeAtBeats(beatFrames, chromaFrames);
  const mean = change.reduce((sum, c) => sum + c, 0) / n;
  // What a downbeat on beat i adds to a path: its harmonic change above the track's mean.
  const gain = change.map((c) => c - mean);
  // score[p]: the best path's total so far with the current beat at bar position p;
  // cameFrom[i * BEATS_PER_BAR + p]: that path's position at beat i - 1.
  let score = Float64Array.from({ length: BEATS_PER_BAR }, (_, p) => (p === 0 ? gain[0] : 0));
  const cameFrom = new Int8Array(n * BEATS_PER_BAR);
  for (let i = 1; i < n; i++) {
    const best = indexOfLargest(score);
    const restart = score[best] - PHASE_CHANGE_COST;
    const next = new Float64Array(BEATS_PER_BAR);
    for (let p = 0; p < BEATS_PER_BAR; p++) {
      const previous = (p + BEATS_PER_BAR - 1) % BEATS_PER_BAR;
      const continues = score[previous] >= restart;
      cameFrom[i * BEATS_PER_BAR + p] = continues ? previous : best;
      next[p] = (continues ? score[previous] : restart) + (p === 0 ? gain[i] : 0);
    }
    score = next;
  }
  const downbeats: number[] = [];
  for (let i = n - 1, p = indexOfLargest(score); i >= 0; p = cameFrom[i * BEATS_PER_BAR + p], i--) if (p === 0) downbeats.push(i);
  return downbeats.reverse();
}

/** Index of the largest value (the first of equals). */
function indexOfLargest(values: Float64Array): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
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
