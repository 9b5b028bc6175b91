// The dominant energy peak (the climax or drop): the beat where the sustained energy after it
// rises most above the energy before it, weighted by how loud it gets.

/** Beats before and after a beat whose energies the peak rule compares. */
const WINDOW_BEATS = 8;
/**
 * The beat the windows choose moves to the biggest rise from one beat to the next within this
 * many beats: the climax's entrance itself. Windows cut short (the track's start or end within
 * 8 beats of the climax) otherwise shift the choice by a beat or more either way.
 */
const ENTRANCE_SEARCH_BEATS = 4;
/**
 * Music before the first tracked beat counts as the peak rule's "before" when it is louder than
 * this share of the loudest beat (-40 dB): the beat tracker drops beats whose onsets are weak (a
 * quiet bar leading into a climax at a clip's start), but that bar is still heard. Digital silence
 * or near-silence before a track's first note is not music before it, and is left out.
 */
const SOUNDING_LEAD_SHARE = 0.01;
/**
 * ... and when it lasts at least this long: an edit's hit point is 1 s or later, so the quiet
 * lead-in of a clip lasts about a second or more, while a shorter stretch before the first beat is
 * the fade-in or first attack of a track's opening note (two soundtrack pieces whose music starts
 * 0.6 s in had their first beat read as the climax).
 */
const MIN_LEAD_SECONDS = 0.75;

/** RMS (linear) over frames [from, to), at least one frame; frames outside the array count as silence. */
function energyBetween(rms: Float32Array, from: number, to: number): number {
  let sum = 0;
  for (let f = from; f < Math.max(from + 1, to); f++) sum += (rms[f] ?? 0) ** 2;
  return Math.sqrt(sum / Math.max(1, to - from));
}

/** Each beat's RMS, from the beat to the next (the last beat: one beat period). */
function beatEnergies(beatFrames: Int32Array, rms: Float32Array): Float64Array {
  const n = beatFrames.length;
  // A plain loop: typed-array from() with a map function takes the slow path (~3x the time).
  const energies = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const from = beatFrames[i];
    const to = i + 1 < n ? beatFrames[i + 1] : Math.min(rms.length, from + (from - (beatFrames[i - 1] ?? 0)));
    energies[i] = energyBetween(rms, from, to);
  }
  return energies;
}

/**
 * The energies of the beat periods that fit before the first beat (up to WINDOW_BEATS, earliest
 * first) when that stretch sounds (SOUNDING_LEAD_SHARE) for MIN_LEAD_SECONDS or more; otherwise none.
 */
function leadEnergies(beatFrames: Int32Array, rms: Float32Array, loudest: number, frameRate: number): number[] {
  const n = beatFrames.length;
  if (n < 2) return [];
  const period = (beatFrames[n - 1] - beatFrames[0]) / (n - 1);
  const count = Math.min(WINDOW_BEATS, Math.floor(beatFrames[0] / period));
  if (count === 0 || beatFrames[0] < MIN_LEAD_SECONDS * frameRate || energyBetween(rms, 0, beatFrames[0]) < SOUNDING_LEAD_SHARE * loudest) return [];
  return Array.from({ length: count }, (_, k) => {
    const from = Math.round(beatFrames[0] - (count - k) * period);
    return energyBetween(rms, from, Math.round(from + period));
  });
}

/** Index into `beatFrames` of the peak beat: the entrance of the biggest rise into a loud passage; -1 when there are no beats. */
export function peakBeat(beatFrames: Int32Array, rms: Float32Array, frameRate: number): number {
  const n = beatFrames.length;
  if (n === 0) return -1;
  const tracked = beatEnergies(beatFrames, rms);
  const loudest = Math.max(...tracked) || 1;
  const lead = leadEnergies(beatFrames, rms, loudest, frameRate);
  const energy = Float64Array.from([...lead, ...tracked]);
  // The last beat is no candidate (when there are others): what follows it is cut off by the
  // track's end (a truncated excerpt's last beat read as its climax, 0.1 s before the end).
  const firstCandidate = Math.max(1, lead.length);
  const lastCandidate = lead.length + (n > 2 ? n - 2 : n - 1);
  const scores = riseScores(energy, firstCandidate, lastCandidate, loudest);
  let best = -1;
  scores.forEach((score, i) => { if (!Number.isNaN(score) && (best < 0 || score > scores[best])) best = i; });
  if (best < 0) return 0;
  return Math.max(lead.length, entranceNear(energy, best, lastCandidate)) - lead.length;
}

/**
 * Each beat's rise (NaN outside [first, last]): how much the WINDOW_BEATS from it rise above the
 * WINDOW_BEATS before, and the level reached, in units of the loudest beat.
 */
function riseScores(energy: Float64Array, first: number, last: number, loudest: number): Float64Array {
  const n = energy.length;
  const scores = new Float64Array(n).fill(NaN);
  for (let i = first; i <= last; i++) {
    let after = 0, before = 0, afterCount = 0, beforeCount = 0;
    for (let j = i; j < Math.min(n, i + WINDOW_BEATS); j++, afterCount++) after += energy[j];
    for (let j = Math.max(0, i - WINDOW_BEATS); j < i; j++, beforeCount++) before += energy[j];
    after /= afterCount;
    before /= beforeCount;
    // A rise into a loud passage: relative jump, and the level reached.
    scores[i] = (after - before) / loudest + 0.5 * (after / loudest);
  }
  return scores;
}

/** The beats whose rise from the beat before entranceNear weighs around `beat` (not after `last`), first and last inclusive. */
function entranceWindow(beat: number, last: number): { from: number; to: number } {
  return { from: Math.max(1, beat - ENTRANCE_SEARCH_BEATS), to: Math.min(last, beat + ENTRANCE_SEARCH_BEATS) };
}

/** The beat within ENTRANCE_SEARCH_BEATS of `beat` (and not after `last`) whose energy rises most over the beat before. */
function entranceNear(energy: Float64Array, beat: number, last: number): number {
  const { from, to } = entranceWindow(beat, last);
  let entrance = beat;
  let rise = -Infinity;
  for (let j = from; j <= to; j++) {
    if (energy[j] - energy[j - 1] > rise) {
      rise = energy[j] - energy[j - 1];
      entrance = j;
    }
  }
  return entrance;
}
