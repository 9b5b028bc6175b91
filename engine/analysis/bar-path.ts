// The bar phase through a piece: which beats start a bar, for bars of a given number of beats,
// as the path of positions in the bar (a Viterbi over beats) that puts the downbeats where the
// per-beat evidence says, continuing the bar for free and restarting it elsewhere at a cost.

/**
 * Downbeat indices (ascending) of the best path through the beats, whose positions in the bar run
 * 0..beatsPerBar-1: a beat at position 0 adds its `gain` (any units), moving from position p to
 * p + 1 (mod beatsPerBar) is free, and a restart at any position costs `restartCost` (gain units).
 * A piece may shift its bar phase (a two-beat bar at a section change, a pattern cut short), so
 * the phase is tracked, not fixed; the cost keeps it from following every stray peak.
 */
export function downbeatPath(gain: ArrayLike<number>, beatsPerBar: number, restartCost: number): number[] {
  const n = gain.length;
  if (n === 0) return [];
  // score[p]: the best path's total so far with the current beat at bar position p;
  // cameFrom[i * beatsPerBar + p]: that path's position at beat i - 1.
  let score = Float64Array.from({ length: beatsPerBar }, (_, p) => (p === 0 ? gain[0] : 0));
  const cameFrom = new Int8Array(n * beatsPerBar);
  for (let i = 1; i < n; i++) {
    const best = indexOfLargest(score);
    const restart = score[best] - restartCost;
    const next = new Float64Array(beatsPerBar);
    for (let p = 0; p < beatsPerBar; p++) {
      const previous = (p + beatsPerBar - 1) % beatsPerBar;
      const continues = score[previous] >= restart;
      cameFrom[i * beatsPerBar + p] = continues ? previous : best;
      next[p] = (continues ? score[previous] : restart) + (p === 0 ? gain[i] : 0);
    }
    score = next;
  }
  const downbeats: number[] = [];
  for (let i = n - 1, p = indexOfLargest(score); i >= 0; p = cameFrom[i * beatsPerBar + p], i--) if (p === 0) downbeats.push(i);
  return downbeats.reverse();
}

/** Index of the largest value (the first of equals). */
function indexOfLargest(values: Float64Array): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}
