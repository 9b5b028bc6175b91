// The onset a join makes. Across a join the clip's frames hear the part before give way to the
// next: a frame's window holds both, each weighted by the (squared) Hann window and its side of the
// equal-power crossfade, so the frame's band energies are a mix of the two parts'. The spectral
// flux of the frames whose windows cross the join is the rise from one mix to the next, not the
// source's own flux there. Laid out from the source's own flux, the check missed the onset a join
// makes (a quiet bar's end into a loud downbeat) and saw one where the source had it but the clip
// does not; the clips heard their beats, and their peak, elsewhere (.scratch, 2026-11-29).
import type { Analysis } from '../analysis/analyse.ts';
import { FFT_SIZE, HOP_SIZE, ONSET_PHASES } from '../analysis/frames.ts';
import { BAND_LEVELS, BAND_LEVEL_STEPS } from '../analysis/band-levels.ts';
import { PLAN_SAMPLE_RATE, SEAM_CROSSFADE_MS } from './plan.ts';

/**
 * The flux over BAND_LEVELS pooled bands is larger than over the spectrogram's 48 (pooling keeps
 * the rises that neighbouring bands share): 0.85 of it matches, on average over frame pairs of
 * eight pieces (.scratch/pooltest.mts, 2026-11-29: ratio of means 0.846, correlation 0.96).
 */
const POOLED_FLUX_SCALE = 0.85;

/** A stored band level's energy (expm1 of the log level), by byte value. */
const LEVEL_ENERGY = Float64Array.from({ length: 256 }, (_, v) => Math.expm1(v / BAND_LEVEL_STEPS));

/**
 * The band levels of source frame `frame` at `phase`: the analysis keeps them at phase 0, so the
 * phase-0 frame whose centre lies nearest (a phase is a quarter hop later); undefined outside the track.
 */
export function frameBandLevels(analysis: Analysis, frame: number, phase: number): Uint8Array | undefined {
  const nearest = frame + Math.round(phase / ONSET_PHASES);
  const frames = analysis.bandLevels.length / BAND_LEVELS;
  if (nearest < 0 || nearest >= frames) return undefined;
  return analysis.bandLevels.subarray(nearest * BAND_LEVELS, (nearest + 1) * BAND_LEVELS);
}

/** Frames before the first frame centred after a join whose windows reach past it (a window spans four hops). */
export const JOIN_FRAMES_BEFORE = FFT_SIZE / HOP_SIZE / 2;
/** Steps per hop of the table of the next part's share of a frame. */
const SHARE_STEPS_PER_HOP = 32;
/** The crossfade's half length in hops (a hop is 2 * HOP_SIZE full-rate samples). */
const CROSSFADE_HALF_HOPS = (SEAM_CROSSFADE_MS / 2000) * PLAN_SAMPLE_RATE / (2 * HOP_SIZE);

/**
 * The next part's share of the energy a frame hears, by where the join lies after the frame's
 * centre (hops, -3 .. 3, in steps of 1 / SHARE_STEPS_PER_HOP): the window's squared weight past
 * the join, each sample weighted by the crossfade's gain squared.
 */
const shareTable: Float64Array = (() => {
  const halfWindow = FFT_SIZE / HOP_SIZE / 2;
  const points = 256;
  const table = new Float64Array(6 * SHARE_STEPS_PER_HOP + 1);
  for (let i = 0; i < table.length; i++) {
    const join = i / SHARE_STEPS_PER_HOP - 3;
    let weighted = 0, total = 0;
    for (let n = 0; n < points; n++) {
      const x = -halfWindow + (2 * halfWindow * (n + 0.5)) / points;
      const w2 = Math.cos((Math.PI * x) / (2 * halfWindow)) ** 4;
      // Equal power: the next part's gain squared rises as sin^2 across the crossfade.
      const ramp = Math.max(0, Math.min(1, (x - join + CROSSFADE_HALF_HOPS) / (2 * CROSSFADE_HALF_HOPS)));
      weighted += w2 * Math.sin((Math.PI / 2) * ramp) ** 2;
      total += w2;
    }
    table[i] = weighted / total;
  }
  return table;
})();

/** The next part's share of a frame whose centre the join lies `joinAfterCentreHops` after (1 well before it, 0 well after). */
function nextPartShare(joinAfterCentreHops: number): number {
  const i = Math.round((joinAfterCentreHops + 3) * SHARE_STEPS_PER_HOP);
  return i <= 0 ? 1 : i >= shareTable.length ? 0 : shareTable[i];
}

/**
 * The flux of the frames around a join, from the band levels (frameBandLevels) of the part before's
 * last frame (`before`) and the part after's first (`after`): the JOIN_FRAMES_BEFORE frames before
 * the first frame centred after the join and that frame, whose centre lies `firstOffsetHops` (0 .. 1)
 * after the join.
 */
export function joinFlux(before: Uint8Array, after: Uint8Array, firstOffsetHops: number): Float64Array {
  const out = new Float64Array(JOIN_FRAMES_BEFORE + 1);
  const bands = before.length;
  let previousShare = nextPartShare(JOIN_FRAMES_BEFORE + 1 - firstOffsetHops);
  for (let k = 0; k <= JOIN_FRAMES_BEFORE; k++) {
    const share = nextPartShare(JOIN_FRAMES_BEFORE - k - firstOffsetHops);
    let sum = 0;
    for (let b = 0; b < bands; b++) {
      const a = LEVEL_ENERGY[before[b]], c = LEVEL_ENERGY[after[b]];
      const rise = Math.log1p(a + share * (c - a)) - Math.log1p(a + previousShare * (c - a));
      if (rise > 0) sum += rise;
    }
    out[k] = (POOLED_FLUX_SCALE * sum) / bands;
    previousShare = share;
  }
  return out;
}
