// Checks a clip's X-Clip-Plan against its audio: a stretch from the middle of each part is found
// in the source by cross-correlation, at the offset the plan says (within a millisecond).
import assert from 'node:assert/strict';
import type { Pcm } from '../../engine/mp3/decode.ts';

const RATE = 44100;
const PROBE_SECONDS = 0.25;
const SEARCH_SECONDS = 0.05;
const TOLERANCE_SAMPLES = 44; // 1 ms
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

/** The source played `stretch` times as long (linear interpolation), as a clip with that stretch plays it. */
function played(channel: Float32Array, stretch: number): Float32Array {
  if (stretch === 1) return channel;
  return Float32Array.from({ length: Math.floor(channel.length * stretch) }, (_, k) => {
    const x = k / stretch, i = Math.floor(x);
    return (channel[i] ?? 0) * (1 - (x - i)) + (channel[i + 1] ?? 0) * (x - i);
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
  const heard = played(source.channels[0], stretch);
  for (const [clipStart, sourceStart, length] of plan) {
    if (length < 2 * PROBE_SECONDS) continue;
    const offset = Math.round((length / 2 - PROBE_SECONDS / 2) * RATE);
    const clipAt = Math.round(clipStart * RATE) + offset;
    const sourceAt = Math.round(sourceStart * stretch * RATE) + offset;
    if (rms(heard, sourceAt, probe) < SILENT_RMS) continue; // a silent stretch matches anywhere
    let bestLag = 0, best = -Infinity;
    for (let lag = -search; lag <= search; lag++) {
      const c = correlation(clip.channels[0], clipAt, heard, sourceAt + lag, probe);
      if (c > best) {
        best = c;
        bestLag = lag;
      }
    }
    assert.ok(Math.abs(bestLag) <= TOLERANCE_SAMPLES && best > 0.9, `part [${clipStart}, ${sourceStart}, ${length}]: best match ${best.toFixed(3)} at ${bestLag} samples`);
  }
}
