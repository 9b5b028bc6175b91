// The onset envelope a clip's own analysis will see, from the source's onsets at its four phases
// (analyse.ts onsetPhases): each clip frame takes the source frame its window covers, at the
// phase its part plays the source (frame-align.ts onOnsetPhase). Laid out from the nearest source
// frame instead, a part played a fraction of a hop off reads onsets that the clip's analysis does
// not see: the check on them agreed with the encoded clip's peak on 619 of 648 held-out plans,
// against 642 for the plan's parts cut from the source PCM and analysed (.scratch, 2026-11-27).
import { type Analysis, ONSET_PHASES } from '../analysis/analyse.ts';
import { PLAN_SAMPLE_RATE, type PlanPart } from './plan.ts';

/** A frame's window centre lies this many hops after its start (spectrogram.ts frameSeconds). */
const CENTRE_HOPS = 2;

function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

/** The source onsets at phase `phase` (0 = analysis.onset): frames of the signal started `phase` phases later. */
function onsetAtPhase(analysis: Analysis, phase: number): Float32Array {
  const frames = analysis.onset.length;
  return phase === 0 ? analysis.onset : analysis.onsetPhases.subarray((phase - 1) * frames, phase * frames);
}

/** The clip's onset envelope, `frames` long, as the placed parts play the source. */
export function phasedOnset(analysis: Analysis, parts: PlanPart[], frames: number): Float32Array {
  const hop = PLAN_SAMPLE_RATE / analysis.frameRate;
  const phases = analysis.onsetPhases?.length ? ONSET_PHASES : 1;
  const phaseSamples = hop / phases;
  const out = new Float32Array(frames);
  for (const part of parts) {
    const offset = part.sourceStart - part.clipStart;
    const steps = Math.round(offset / phaseSamples);
    const phase = mod(steps, phases);
    const source = onsetAtPhase(analysis, phase);
    const frameShift = (steps - phase) / phases;
    // The part's frames are those whose window centre it plays.
    const from = Math.max(0, Math.ceil(part.clipStart / hop - CENTRE_HOPS));
    const to = Math.min(frames, Math.ceil((part.clipStart + part.length) / hop - CENTRE_HOPS));
    for (let f = from; f < to; f++) {
      const g = f + frameShift;
      out[f] = g >= 0 && g < source.length ? source[g] : 0;
    }
  }
  return out;
}
