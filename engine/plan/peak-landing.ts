// Where the analysis of a clip would find its peak. A plan puts the source's peak at H, but the
// analysis finds a peak by its surroundings (peakBeat: the beat where the sustained energy after
// it rises most above the energy before it) on the beats it tracks in the clip itself, and an
// edit changes both: a climax cut short for the ending, or a lead-in as loud as the build, moves
// the clip's own peak. So a candidate plan is checked by the analysis's own steps run over the
// envelopes the plan plays: the source's onset strength and RMS frames, laid out as its runs play
// them, beat-tracked (at the track's tempo: re-estimating it from the clip costs 3x as much and
// changed no outcome on the demo songs), then the peak rule.
import type { Analysis } from '../analysis/analyse.ts';
import { peakBeat } from '../analysis/peak.ts';
import { beatFrames } from '../analysis/beats.ts';
import { FFT_SIZE, HOP_SIZE } from '../analysis/spectrogram.ts';
import type { Run } from './plan.ts';

/** The analysis's landing tolerance for a hit point (the 25 ms). */
const LANDING_SECONDS = 0.025;

/** The source's envelope `values` as the runs play it. */
function envelopeOf(values: Float32Array, runs: Run[], rate: number): Float32Array {
  const total = Math.round(runs.reduce((n, r) => n + r.length, 0) * rate);
  const out = new Float32Array(total);
  let clipSeconds = 0;
  for (const run of runs) {
    const clipFrame = Math.round(clipSeconds * rate), sourceFrame = Math.round(run.sourceStart * rate);
    const frames = Math.max(0, Math.min(Math.round(run.length * rate), total - clipFrame, values.length - sourceFrame));
    out.set(values.subarray(sourceFrame, sourceFrame + frames), clipFrame);
    clipSeconds += run.length;
  }
  return out;
}

/** True when the clip made of `runs`, analysed on its own, has its peak within 25 ms of `hitSeconds`. */
export function clipKeepsPeak(analysis: Analysis, runs: Run[], hitSeconds: number): boolean {
  const rate = analysis.frameRate;
  const onset = envelopeOf(analysis.onset, runs, rate);
  const beats = beatFrames(onset, (60 * rate) / analysis.tempoBpm);
  const peak = peakBeat(beats, envelopeOf(analysis.rms, runs, rate));
  if (peak < 0) return false;
  // A frame's time is its window's centre, as analysePcm reports beat times.
  const peakSeconds = (beats[peak] + FFT_SIZE / 2 / HOP_SIZE) / rate;
  return Math.abs(peakSeconds - hitSeconds) <= LANDING_SECONDS;
}
