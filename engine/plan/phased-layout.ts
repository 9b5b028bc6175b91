// The onset envelope and RMS levels a clip's own analysis will see, from the source's at its four
// phases (analyse.ts onsetPhases, rmsPhases): each clip frame takes the source frame its window
// covers, at the phase its part plays the source (frame-align.ts onOnsetPhase). Laid out from the
// nearest source frame instead, a part played a fraction of a hop off reads envelopes the clip's
// analysis does not see: the check on them agreed with the encoded clip's peak on 619 of 648
// held-out plans, against 642 for the plan's parts cut from the source PCM and analysed, and 637
// with the onsets at their phases (.scratch, 2026-11-27).
import type { Analysis } from '../analysis/analyse.ts';
import { ONSET_PHASES } from '../analysis/frames.ts';
import type { FrameLevels } from '../analysis/peak.ts';
import { PLAN_SAMPLE_RATE, type PlanPart } from './plan.ts';
import { mod } from './frame-align.ts';
import { squareSumsOf } from './clip-levels.ts';

/** A frame's window centre lies this many hops after its start (spectrogram.ts frameSeconds). */
const CENTRE_HOPS = 2;

/** The phases an analysis holds its envelopes at (one for an analysis made without them). */
function phaseCount(analysis: Analysis): number {
  return analysis.onsetPhases?.length ? ONSET_PHASES : 1;
}

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
  const phases = phaseCount(analysis);
  const phaseSamples = hop / phases;
  return parts.map((part) => {
    const steps = Math.round((part.sourceStart - part.clipStart) / phaseSamples);
    const phase = mod(steps, phases);
    return {
      clipFrom: Math.max(0, Math.ceil(part.clipStart / hop - CENTRE_HOPS)),
      clipTo: Math.min(frames, Math.ceil((part.clipStart + part.length) / hop - CENTRE_HOPS)),
      phase,
      frameShift: (steps - phase) / phases,
    };
  });
}

/** An envelope at phase `phase`: `phase0` itself, or the phase's stretch of `others` (phases 1.. one after another). */
function atPhase(phase0: Float32Array, others: Float32Array, phase: number): Float32Array {
  const frames = phase0.length;
  return phase === 0 ? phase0 : others.subarray((phase - 1) * frames, phase * frames);
}

/** The clip's onset envelope, `frames` long, as the placed parts play the source. */
export function phasedOnset(analysis: Analysis, parts: PlanPart[], frames: number): Float32Array {
  const out = new Float32Array(frames);
  for (const { clipFrom, clipTo, phase, frameShift } of phasedSegments(analysis, parts, frames)) {
    const source = atPhase(analysis.onset, analysis.onsetPhases, phase);
    for (let f = clipFrom; f < clipTo; f++) {
      const g = f + frameShift;
      out[f] = g >= 0 && g < source.length ? source[g] : 0;
    }
  }
  return out;
}

/** Each phase's RMS running sums of squares, per analysis (keyed by its RMS, which another anchor's copy shares). */
const phaseSquareSums = new WeakMap<Float32Array, Float64Array[]>();

function phaseSquareSumsOf(analysis: Analysis): Float64Array[] {
  let sums = phaseSquareSums.get(analysis.rms);
  if (!sums) {
    sums = Array.from({ length: phaseCount(analysis) }, (_, phase) => squareSumsOf(atPhase(analysis.rms, analysis.rmsPhases, phase)));
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
