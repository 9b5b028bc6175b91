// A source envelope as a plan's runs play it, frame by frame: which clip frames take which source
// frames. The onset envelope is laid out (the clip's beats are tracked on it); the RMS the peak
// rule reads is summed straight from the source's running sums, about a hundred beats' sums per
// plan instead of copying and squaring thousands of frames (~1/3 of a screen's time).
import type { FrameLevels } from '../analysis/peak.ts';
import type { Run } from './plan.ts';
import { framesOfSeconds } from '../analysis/frames.ts';

/** Clip frames [clipFrom, clipTo) play source frames from `sourceFrom` on. */
interface Segment {
  clipFrom: number;
  clipTo: number;
  sourceFrom: number;
}

/**
 * Where each run plays, in frames at `rate`: a run starts at its rounded clip time and plays its
 * rounded length, cut at the clip's end and the source's; a run's last frame that rounding lays
 * on the next run's first is the next run's. Frames no segment covers are silent.
 */
function segmentsOf(runs: Run[], rate: number, sourceFrames: number): { frames: number; segments: Segment[] } {
  const frames = framesOfSeconds(runs.reduce((n, r) => n + r.length, 0), rate);
  const segments: Segment[] = [];
  let clipSeconds = 0;
  for (const run of runs) {
    const clipFrom = Math.round(clipSeconds * rate), sourceFrom = Math.round(run.sourceStart * rate);
    const length = Math.max(0, Math.min(Math.round(run.length * rate), frames - clipFrom, sourceFrames - sourceFrom));
    const previous = segments[segments.length - 1];
    // Rounding overlaps two runs by a frame at most, and the later run covers it.
    if (previous && length > 0 && previous.clipTo > clipFrom) previous.clipTo = Math.max(previous.clipFrom, clipFrom);
    segments.push({ clipFrom, clipTo: clipFrom + length, sourceFrom });
    clipSeconds += run.length;
  }
  return { frames, segments };
}

/** The source's envelope `values` as the runs play it. */
export function envelopeOf(values: Float32Array, runs: Run[], rate: number): Float32Array {
  const { frames, segments } = segmentsOf(runs, rate, values.length);
  const out = new Float32Array(frames);
  for (const { clipFrom, clipTo, sourceFrom } of segments) out.set(values.subarray(sourceFrom, sourceFrom + clipTo - clipFrom), clipFrom);
  return out;
}

/** Running sums of squares of each source RMS array: entry f is the sum over frames [0, f). */
const squareSums = new WeakMap<Float32Array, Float64Array>();

/** The running sums of squares of `rms` (entry f: frames [0, f)), made once per array. */
export function squareSumsOf(rms: Float32Array): Float64Array {
  let sums = squareSums.get(rms);
  if (!sums) {
    sums = new Float64Array(rms.length + 1);
    for (let f = 0; f < rms.length; f++) sums[f + 1] = sums[f] + rms[f] ** 2;
    squareSums.set(rms, sums);
  }
  return sums;
}

/** The source's RMS frames as the runs play them, for the peak rule (peak.ts), without laying them out. */
export function clipLevels(rms: Float32Array, runs: Run[], rate: number): FrameLevels {
  const { frames, segments } = segmentsOf(runs, rate, rms.length);
  const sums = squareSumsOf(rms);
  return {
    frames,
    sumOfSquares(from, to) {
      let sum = 0;
      for (const { clipFrom, clipTo, sourceFrom } of segments) {
        const a = Math.max(from, clipFrom), b = Math.min(to, clipTo);
        if (a < b) sum += sums[sourceFrom + b - clipFrom] - sums[sourceFrom + a - clipFrom];
      }
      return sum;
    },
  };
}
