// The clip a plan's runs make of a source, sample for sample, for tests that analyse a plan's
// clip without encoding it.
import { PLAN_SAMPLE_RATE, type Run } from '../../engine/plan/plan.ts';

/** The clip `runs` make of the source, sample for sample (no crossfades: the peak is what is checked). */
export function laidOut(channels: Float32Array[], runs: Run[]): { sampleRate: number; channels: Float32Array[] } {
  const length = runs.reduce((sum, run) => sum + Math.round(run.length * PLAN_SAMPLE_RATE), 0);
  return {
    sampleRate: PLAN_SAMPLE_RATE,
    channels: channels.map((channel) => {
      const out = new Float32Array(length);
      let at = 0;
      for (const run of runs) {
        const from = Math.round(run.sourceStart * PLAN_SAMPLE_RATE);
        const samples = Math.round(run.length * PLAN_SAMPLE_RATE);
        out.set(channel.subarray(from, from + samples), at);
        at += samples;
      }
      return out;
    }),
  };
}
