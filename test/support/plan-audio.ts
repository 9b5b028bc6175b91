// Checks a clip's X-Clip-Plan against its audio: a stretch from the middle of each part is found
// in the source by cross-correlation, at the offset the plan says (within a millisecond).
import assert from 'node:assert/strict';
import type { Pcm } from '../../engine/mp3/decode.ts';

const RATE = 44100;
const PROBE_SECONDS = 0.25;
const SEARCH_SECONDS = 0.05;
const TOLERANCE_SAMPLES = 44; // 1 ms
/** Sub-sample steps tried around a stretched part's best whole-sample match. */
const FRACTION_STEPS = 10;
/** Below this RMS (about -60 dBFS) a stretch is silence, which says nothing about where it came from. */
const SILENT_RMS = 0.001;

function rms(x: Float32Array, from: number, length: number): number {
  let sum = 0;
  for (let i = 0; i < length; i++) sum += (x[from + i] ?? 0) ** 2;
  return Math.sqrt(sum / length);
}

function correlation(a: Float32Array, aFrom: number, b: Float32Array, bFrom: number, length: number): number {
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < length; i++) {
    const x = a[aFrom + i] ?? 0, y = b[bFrom + i] ?? 0;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

/** Samples [from, from + length) of the source played `stretch` times as long (cubic interpolation), as a clip with that stretch plays it. */
function played(channel: Float32Array, stretch: number, from: number, length: number): Float32Array {
  const at = (i: number) => channel[i] ?? 0;
  return Float32Array.from({ length }, (_, k) => {
    const x = (from + k) / stretch, i = Math.floor(x), t = x - i;
    const [p0, p1, p2, p3] = [at(i - 1), at(i), at(i + 1), at(i + 2)];
    return p1 + 0.5 * t * (p2 - p0 + t * (2 * p0 - 5 * p1 + 4 * p2 - p3 + t * (3 * (p1 - p2) + p3 - p0)));
  });
}

/**
 * Plan triples in seconds (clip start and length as the clip plays them); asserts each part's
 * middle is the source at the planned place. `stretch`: the plan's (the clip plays the source that
 * many times as long).
 */
export function planMatchesAudio(plan: number[][], clip: Pcm, source: Pcm, stretch = 1): void {
  const probe = Math.round(PROBE_SECONDS * RATE);
  const search = Math.round(SEARCH_SECONDS * RATE);
  for (const [clipStart, sourceStart, length] of plan) {
    if (length < 2 * PROBE_SECONDS) continue;
    const offset = Math.round((length / 2 - PROBE_SECONDS / 2) * RATE);
    const clipAt = Math.round(clipStart * RATE) + offset;
    const sourceAt = Math.round(sourceStart * stretch * RATE) + offset;
    // The source around the part's middle as the clip plays it: window[search] is heard at clipAt.
    const window = stretch === 1 ? source.channels[0].subarray(Math.max(0, sourceAt - search)) : played(source.channels[0], stretch, sourceAt - search, probe + 2 * search);
    const origin = stretch === 1 ? Math.min(search, sourceAt) : search;
    if (rms(window, origin, probe) < SILENT_RMS) continue; // a silent stretch matches anywhere
    let bestLag = 0, best = -Infinity;
    for (let lag = -search; lag <= search; lag++) {
      if (origin + lag < 0) continue;
      const c = correlation(clip.channels[0], clipAt, window, origin + lag, probe);
      if (c > best) {
        best = c;
        bestLag = lag;
      }
    }
    // A stretched part lies between the source's samples: the best match is refined to a tenth of one.
    if (stretch !== 1) {
      for (let tenth = -FRACTION_STEPS; tenth <= FRACTION_STEPS; tenth++) {
        best = Math.max(best, correlation(clip.channels[0], clipAt, played(source.channels[0], stretch, sourceAt + bestLag + tenth / FRACTION_STEPS, probe), 0, probe));
      }
    }
    assert.ok(Math.abs(bestLag) <= TOLERANCE_SAMPLES && best > 0.9, `part [${clipStart}, ${sourceStart}, ${length}]: best match ${best.toFixed(3)} at ${bestLag} samples`);
  }
}
