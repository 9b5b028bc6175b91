// Tempo changes within a piece. The whole piece's tempo (tempo.ts) is one period; a piece that
// changes tempo part-way (125 BPM, then 94) is tracked on that one period and its beats drift off
// the music for the whole passage at the other tempo. So the period is also read per window of a
// few seconds, and the sequence of windows' periods with the fewest, strongest changes is found by
// dynamic programming (Viterbi: each change costs CHANGE_COST, and each window away from the
// piece's period AWAY_COST). Only the neighbourhood of the piece's own period is read
// (LOCAL_RANGE), so a passage in half time or double time is not a tempo change: the metrical
// level stays the piece's.
//
// A piece that does not both keep to its period and leave it for a while has no tempo track, and
// its beats are tracked on the one period as before: the track only changes pieces that change.
import { strongestNearEachFrame } from './pulse-grid.ts';

/** Seconds of onsets in each block; a window is WINDOW_BLOCKS blocks in a row, and windows start a block apart. */
const BLOCK_SECONDS = 4;
/** Blocks per window: 8 s, several bars at any tempo. */
const WINDOW_BLOCKS = 2;
/** The periods read per window, as multiples of the piece's period: from 4:3 faster to 3:2 slower, short of an octave either way. */
const LOCAL_RANGE: [number, number] = [0.72, 1.45];
/** Candidate periods are this many frames apart. */
const PERIOD_STEP_FRAMES = 0.5;
/**
 * Evidence is raised to this power: where the onsets are dense, a grid of a related period still
 * lands on subdivisions and scores not far below the best, so only the clear best should count as
 * much as 1.
 */
const EVIDENCE_SHARPNESS = 4;
/** The cost of a change of period between windows, in windows of the best evidence (each window scores 0..1). */
const CHANGE_COST = 3;
/**
 * Periods within this share of each other are one tempo drifting, not a change, and a step of
 * drift costs in proportion to its size, a whole DRIFT_SHARE as much as one window's best
 * evidence: the path follows a tempo that moves, but cannot wander off by many small steps.
 */
const DRIFT_SHARE = 0.03;
/**
 * What each window away from the piece's period (by more than STEADY_SHARE) costs, in windows of
 * the best evidence: the piece's reading has the tempo prior and the metrical level behind it, and
 * a related period (3:4, 4:3) can lead it in a window of 8 s by chance, so a passage leaves the
 * piece's period only where another is clearly better there window after window.
 */
const AWAY_COST = 0.5;
/** A window whose period is within this share of the piece's keeps to it. */
const STEADY_SHARE = 0.06;
/** A tempo change is taken only where it lasts at least this many windows in a row (about 20 s). */
const MIN_CHANGED_WINDOWS = 4;
/** Windows whose onsets are weaker than this share of the median window's carry no evidence (a break, a fade). */
const QUIET_WINDOW_SHARE = 0.2;

/** The beat period at each onset frame, as the range of the periods of the windows that cover it. */
export interface LocalPeriods {
  shortest: Float32Array;
  longest: Float32Array;
}

/**
 * The beat periods (frames) at each onset frame, or undefined when the piece keeps to
 * `periodFrames` throughout (see the top of the file). A frame covered by windows of two tempos
 * (about a change) gets both, and its beat may be spaced by either.
 */
export function localPeriods(onset: Float32Array, frameRate: number, periodFrames: number): LocalPeriods | undefined {
  const block = Math.round(BLOCK_SECONDS * frameRate);
  const blocks = Math.floor(onset.length / block);
  const windows = blocks - WINDOW_BLOCKS + 1;
  if (windows < MIN_CHANGED_WINDOWS + 1) return undefined;
  const periods = candidatePeriods(periodFrames);
  const near = strongestNearEachFrame(onset);
  const span = (w: number): [number, number] => [w * block, (w + WINDOW_BLOCKS) * block];
  const evidence = Array.from({ length: windows }, (_, w) => windowEvidence(near, span(w), periods));
  quietWindowsSilenced(evidence, Array.from({ length: windows }, (_, w) => meanOf(onset, span(w))));
  chargedForLeaving(evidence, periods, periodFrames);
  const path = viterbi(evidence, periods).map((k) => periods[k]);
  return changesLastingly(path, periodFrames) ? perFrame(path, onset.length, block) : undefined;
}

/** Each window's evidence for a period away from the piece's, less AWAY_COST. */
function chargedForLeaving(evidence: Float64Array[], periods: Float64Array, periodFrames: number): void {
  for (const e of evidence) {
    periods.forEach((p, k) => {
      if (!keepsTo(p, periodFrames)) e[k] -= AWAY_COST;
    });
  }
}

/** The shortest and longest of the windows' periods (`path`) over the windows that cover each of `frames` frames. */
function perFrame(path: number[], frames: number, block: number): LocalPeriods {
  const shortest = new Float32Array(frames);
  const longest = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    // The windows covering frame f start from WINDOW_BLOCKS - 1 blocks before its block to its block.
    const b = Math.floor(f / block);
    const first = Math.min(path.length - 1, Math.max(0, b - WINDOW_BLOCKS + 1));
    const last = Math.min(path.length - 1, b);
    shortest[f] = Infinity;
    longest[f] = 0;
    for (let w = first; w <= last; w++) {
      shortest[f] = Math.min(shortest[f], path[w]);
      longest[f] = Math.max(longest[f], path[w]);
    }
  }
  return { shortest, longest };
}

/** The periods tried, LOCAL_RANGE around the piece's, PERIOD_STEP_FRAMES apart. */
function candidatePeriods(periodFrames: number): Float64Array {
  const from = LOCAL_RANGE[0] * periodFrames;
  const count = Math.floor(((LOCAL_RANGE[1] - LOCAL_RANGE[0]) * periodFrames) / PERIOD_STEP_FRAMES) + 1;
  return Float64Array.from({ length: count }, (_, k) => from + k * PERIOD_STEP_FRAMES);
}

/**
 * Each candidate period's evidence in one window [from, to) of frames: how strong the onsets are
 * under a grid of that period at its best phase (a comb, as Scheirer's and Klapuri's tempo
 * estimators), scaled from 0 (the window's weakest period) to 1 (its strongest) and raised to
 * EVIDENCE_SHARPNESS. A grid only lands on every beat at the true period; an autocorrelation, by
 * contrast, scores any period whose multiples fall on the subdivisions (4:3 of the beat, in music
 * of sixteenths) nearly as high.
 */
function windowEvidence(near: Float32Array, [from, to]: [number, number], periods: Float64Array): Float64Array {
  const strength = Float64Array.from(periods, (p) => combStrength(near, from, to, p));
  let lo = Infinity, hi = -Infinity;
  for (const s of strength) {
    lo = Math.min(lo, s);
    hi = Math.max(hi, s);
  }
  return hi > lo ? strength.map((s) => ((s - lo) / (hi - lo)) ** EVIDENCE_SHARPNESS) : strength.fill(0);
}

/** The mean strongest-near onset (pulse-grid.ts) under the grid of `period` frames at its best whole-frame phase within [from, to). */
function combStrength(near: Float32Array, from: number, to: number, period: number): number {
  let best = 0;
  for (let phase = 0; phase < period; phase++) {
    let sum = 0, points = 0;
    for (let t = from + phase; t < to; t += period, points++) sum += near[Math.round(t)];
    if (points) best = Math.max(best, sum / points);
  }
  return best;
}

function meanOf(onset: Float32Array, [from, to]: [number, number]): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += onset[i];
  return sum / (to - from);
}

/** Windows much quieter than the median one (by their mean onset) tell nothing: their evidence is flat (0). */
function quietWindowsSilenced(evidence: Float64Array[], energies: number[]): void {
  const median = [...energies].sort((a, b) => a - b)[energies.length >> 1];
  energies.forEach((e, w) => {
    if (e < QUIET_WINDOW_SHARE * median) evidence[w].fill(0);
  });
}

/** The candidate index per window maximising the evidence less the cost of each step between windows (transitionCost). */
function viterbi(evidence: Float64Array[], periods: Float64Array): number[] {
  const states = periods.length;
  const cost = Float64Array.from({ length: states * states }, (_, i) => transitionCost(periods[Math.floor(i / states)], periods[i % states]));
  let score = Float64Array.from(evidence[0]);
  const back: Int32Array[] = [];
  for (let w = 1; w < evidence.length; w++) {
    const next = new Float64Array(states);
    const from = new Int32Array(states);
    for (let k = 0; k < states; k++) {
      let best = -Infinity;
      let arg = k;
      for (let j = 0; j < states; j++) {
        const candidate = score[j] - cost[j * states + k];
        if (candidate > best) {
          best = candidate;
          arg = j;
        }
      }
      next[k] = best + evidence[w][k];
      from[k] = arg;
    }
    back.push(from);
    score = next;
  }
  let last = 0;
  for (let k = 1; k < states; k++) if (score[k] > score[last]) last = k;
  const path = [last];
  for (let w = back.length - 1; w >= 0; w--) path.push(back[w][path[path.length - 1]]);
  return path.reverse();
}

/** The cost of going from period `from` to `to` between windows: drift in proportion to its size, a change at CHANGE_COST. */
function transitionCost(from: number, to: number): number {
  const step = Math.abs(Math.log(to / from));
  return step <= Math.log1p(DRIFT_SHARE) ? step / Math.log1p(DRIFT_SHARE) : CHANGE_COST;
}

/** Whether a window's period keeps to the piece's `periodFrames` (within STEADY_SHARE). */
function keepsTo(period: number, periodFrames: number): boolean {
  return Math.abs(period / periodFrames - 1) <= STEADY_SHARE;
}

/**
 * Whether the windows' periods both keep to the piece's and leave it, each for at least
 * MIN_CHANGED_WINDOWS windows in a row. A path that never keeps to the piece's period is not a
 * change of tempo but a disagreement with the whole piece's reading (which has the tempo prior and
 * the metrical level behind it), and the piece's reading stands.
 */
function changesLastingly(windowPeriods: number[], periodFrames: number): boolean {
  let steady = 0, changed = 0, longestSteady = 0, longestChanged = 0;
  for (const p of windowPeriods) {
    const keeps = keepsTo(p, periodFrames);
    steady = keeps ? steady + 1 : 0;
    changed = keeps ? 0 : changed + 1;
    longestSteady = Math.max(longestSteady, steady);
    longestChanged = Math.max(longestChanged, changed);
  }
  return longestSteady >= MIN_CHANGED_WINDOWS && longestChanged >= MIN_CHANGED_WINDOWS;
}
