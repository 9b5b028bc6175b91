// The onset envelope and RMS levels a clip's own analysis will see, from the source's at its four
// phases (analyse.ts fluxPhases, rmsPhases): each clip frame takes the source frame its window
// covers, at the phase its part plays the source (frame-align.ts onOnsetPhase). The onsets are the
// clip's flux with its local mean taken over the clip's own frames, and the frames whose windows
// cross a join hear the one part give way to the next (join-onset.ts), not the source's own flux.
// Laid out from the nearest source frame instead, a part played a fraction of a hop off reads envelopes the clip's
// analysis does not see: the check on them agreed with the encoded clip's peak on 619 of 648
// held-out plans, against 642 for the plan's parts cut from the source PCM and analysed, and 637
// with the onsets at their phases (.scratch, 2026-11-27).
import type { Analysis } from '../analysis/analyse.ts';
import { ONSET_PHASES } from '../analysis/frames.ts';
import type { FrameLevels } from '../analysis/peak.ts';
import { PLAN_SAMPLE_RATE, type PlanPart } from './plan.ts';
import { mod } from './frame-align.ts';
import { squareSumsOf } from './clip-levels.ts';
import { onsetOfFlux } from '../analysis/onset.ts';
import { JOIN_FRAMES_BEFORE, frameBandLevels, joinFlux } from './join-onset.ts';

/** A frame's window centre lies this many hops after its start (spectrogram.ts frameSeconds). */
const CENTRE_HOPS = 2;

/** Clip frames [clipFrom, clipTo) play the source's frames at `phase` from clipFrom + frameShift on. */
interface PhasedSegment {
  clipFrom: number;
  clipTo: number;
  phase: number;
  frameShift: number;
}

/** Where each part's frames come from: the frames whose window centre it plays, at the phase it plays the source. */
function phasedSegments(analysis: Analysis, parts: PlanPart[], frames: number): PhasedSegment[] {
  const hop = PLAN_SAMPLE_RATE / analysis.frameRate;
  const phaseSamples = hop / ONSET_PHASES;
  return parts.map((part) => {
    const steps = Math.round((part.sourceStart - part.clipStart) / phaseSamples);
    const phase = mod(steps, ONSET_PHASES);
    return {
      clipFrom: Math.max(0, Math.ceil(part.clipStart / hop - CENTRE_HOPS)),
      clipTo: Math.min(frames, Math.ceil((part.clipStart + part.length) / hop - CENTRE_HOPS)),
      phase,
      frameShift: (steps - phase) / ONSET_PHASES,
    };
  });
}

/**
 * The frames before a join's first frame still hear about this share of the part before's own
 * changes (its notes go on under the next part's arrival): with about this share (0.5 and 0.3 of
 * the two frames) the flux laid out around 38 joins of six pieces came nearer the rendered clips'
 * (summed error 20.2 -> 17.7; the source's own flux laid out: 22.0; .scratch/joincmp.mts,
 * 2026-11-29), and 0.4 for both is what the landing figures were measured with.
 */
const OWN_FLUX_ACROSS_JOIN = 0.4;

/** An envelope at phase `phase`: `phase0` itself, or the phase's stretch of `others` (phases 1.. one after another). */
function atPhase(phase0: Float32Array, others: Float32Array, phase: number): Float32Array {
  const frames = phase0.length;
  return phase === 0 ? phase0 : others.subarray((phase - 1) * frames, phase * frames);
}

/** The source's flux at `phase` (analyse.ts fluxPhases). */
function fluxAtPhase(analysis: Analysis, phase: number): Float32Array {
  const frames = analysis.onset.length;
  return analysis.fluxPhases.subarray(phase * frames, (phase + 1) * frames);
}

/**
 * The clip's onset envelope, `frames` long, as the placed parts play the source; with
 * `joinOnsetShare`, each join's modelled rise (join-onset.ts) taken at that share of itself.
 */
export function phasedOnset(analysis: Analysis, parts: PlanPart[], frames: number, joinOnsetShare = 1): Float32Array {
  const flux = new Float32Array(frames);
  const segments = phasedSegments(analysis, parts, frames);
  for (const { clipFrom, clipTo, phase, frameShift } of segments) {
    const source = fluxAtPhase(analysis, phase);
    for (let f = clipFrom; f < clipTo; f++) {
      const g = f + frameShift;
      flux[f] = g >= 0 && g < source.length ? source[g] : 0;
    }
  }
  for (let i = 1; i < segments.length; i++) crossJoin(analysis, segments[i - 1], segments[i], parts[i].clipStart, joinOnsetShare, flux);
  // A clip's first frame has no frame before it to rise from (onset.ts spectralFlux).
  if (frames > 0) flux[0] = 0;
  return onsetOfFlux(flux);
}

/**
 * The flux of the clip frames whose windows cross the join from segment `before` to `after` (the
 * next part starting at clip sample `joinSample`): the rise from one part's band levels into the
 * next's (join-onset.ts), at `riseShare` of itself, plus the part before's own changes those frames still hear.
 */
function crossJoin(analysis: Analysis, before: PhasedSegment, after: PhasedSegment, joinSample: number, riseShare: number, flux: Float32Array): void {
  const f = after.clipFrom;
  if (f < JOIN_FRAMES_BEFORE || f >= flux.length || before.clipTo !== f || before.clipTo <= before.clipFrom) return;
  // Parts that play on in the source make no join.
  if (before.phase === after.phase && before.frameShift === after.frameShift) return;
  const lastBefore = frameBandLevels(analysis, f - 1 + before.frameShift, before.phase);
  const firstAfter = frameBandLevels(analysis, f + after.frameShift, after.phase);
  if (!lastBefore || !firstAfter) return;
  const hop = PLAN_SAMPLE_RATE / analysis.frameRate;
  const rises = joinFlux(lastBefore, firstAfter, f + CENTRE_HOPS - joinSample / hop);
  const ownFlux = fluxAtPhase(analysis, before.phase);
  for (let k = 0; k <= JOIN_FRAMES_BEFORE; k++) {
    const own = k < JOIN_FRAMES_BEFORE ? OWN_FLUX_ACROSS_JOIN * (ownFlux[f - JOIN_FRAMES_BEFORE + k + before.frameShift] ?? 0) : 0;
    flux[f - JOIN_FRAMES_BEFORE + k] = riseShare * rises[k] + own;
  }
}

/** Each phase's RMS running sums of squares, per analysis (keyed by its RMS, which another anchor's copy shares). */
const phaseSquareSums = new WeakMap<Float32Array, Float64Array[]>();

function phaseSquareSumsOf(analysis: Analysis): Float64Array[] {
  let sums = phaseSquareSums.get(analysis.rms);
  if (!sums) {
    sums = Array.from({ length: ONSET_PHASES }, (_, phase) => squareSumsOf(atPhase(analysis.rms, analysis.rmsPhases, phase)));
    phaseSquareSums.set(analysis.rms, sums);
  }
  return sums;
}

/** The clip's RMS levels, `frames` long, as the placed parts play the source: summed from running sums, not laid out. */
export function phasedLevels(analysis: Analysis, parts: PlanPart[], frames: number): FrameLevels {
  const segments = phasedSegments(analysis, parts, frames);
  const sums = phaseSquareSumsOf(analysis);
  return {
    frames,
    sumOfSquares(from, to) {
      let sum = 0;
      for (const { clipFrom, clipTo, phase, frameShift } of segments) {
        const phaseSums = sums[phase];
        // Source frames outside the track are silent.
        const a = Math.max(from, clipFrom, -frameShift), b = Math.min(to, clipTo, phaseSums.length - 1 - frameShift);
        if (a < b) sum += phaseSums[b + frameShift] - phaseSums[a + frameShift];
      }
      return sum;
    },
  };
}
