// The dominant energy peak (the climax or drop): the beat where the sustained energy after it
// rises most above the energy before it, weighted by how loud it gets.

/** Beats before and after a beat whose energies the peak rule compares. */
export const WINDOW_BEATS = 8;
/**
 * The beat the windows choose moves to the biggest rise from one beat to the next within this
 * many beats: the climax's entrance itself. Windows cut short (a clip's start or end within 8
 * beats of the climax) otherwise shift the choice by a beat or more either way.
 */
const ENTRANCE_SEARCH_BEATS = 4;

/** Index into `beatFrames` of the peak beat. */
export function peakBeat(beatFrames: Int32Array, rms: Float32Array): number {
  const n = beatFrames.length;
  if (n === 0) return -1;
  const energy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const from = beatFrames[i];
    const to = i + 1 < n ? beatFrames[i + 1] : Math.min(rms.length, from + (beatFrames[i] - (beatFrames[i - 1] ?? 0)));
    let sum = 0;
    for (let f = from; f < Math.max(from + 1, to); f++) sum += (rms[f] ?? 0) ** 2;
    energy[i] = Math.sqrt(sum / Math.max(1, to - from));
  }
  const loudest = Math.max(...energy) || 1;
  let best = 0;
  let bestScore = -Infinity;
  // The last beat is no candidate (when there are others): what follows it is cut off by the
  // track's end (a truncated excerpt's last beat read as its climax, 0.1 s before the end).
  const lastCandidate = n > 2 ? n - 2 : n - 1;
  for (let i = 1; i <= lastCandidate; i++) {
    let after = 0, before = 0, afterCount = 0, beforeCount = 0;
    for (let j = i; j < Math.min(n, i + WINDOW_BEATS); j++, afterCount++) after += energy[j];
    for (let j = Math.max(0, i - WINDOW_BEATS); j < i; j++, beforeCount++) before += energy[j];
    after /= afterCount;
    before /= beforeCount;
    // A rise into a loud passage: relative jump, and the level reached.
    const score = (after - before) / loudest + 0.5 * (after / loudest);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return entranceNear(energy, best, lastCandidate);
}

/** The beat within ENTRANCE_SEARCH_BEATS of `beat` (and not after `last`) whose energy rises most over the beat before. */
function entranceNear(energy: Float64Array, beat: number, last: number): number {
  let entrance = beat;
  let rise = -Infinity;
  for (let j = Math.max(1, beat - ENTRANCE_SEARCH_BEATS); j <= Math.min(last, beat + ENTRANCE_SEARCH_BEATS); j++) {
    if (energy[j] - energy[j - 1] > rise) {
      rise = energy[j] - energy[j - 1];
      entrance = j;
    }
  }
  return entrance;
}
