// The dominant energy peak (the climax or drop) a listener would name: the start of the loudest
// sustained passage. Find the loudest stretch of SUSTAIN_BEATS beats, widen it back over the
// beats that stay nearly as loud (the passage), and take the beat inside it where the level rises
// most over the beats before (the entrance after the build). A loud first entrance, a last hit or
// a short burst is not the climax unless it belongs to the loudest sustained passage.

/** Two bars of 4/4: long enough to be a passage, short enough to resolve a drop. */
const SUSTAIN_BEATS = 8;
/** Beats whose sustained level is within this of the loudest belong to the same passage (dB). */
const PASSAGE_TOLERANCE_DB = 1.5;
/** Floor of the power in dB, so that silence compares (digital silence is -infinity). */
const SILENCE_DB = -120;

/** Mean power (RMS squared) of the frames of each beat. */
export function beatPower(beatFrames: Int32Array, rms: Float32Array): Float64Array {
  const n = beatFrames.length;
  const power = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const from = beatFrames[i];
    const length = i + 1 < n ? beatFrames[i + 1] - from : from - (beatFrames[i - 1] ?? 0);
    const to = Math.min(rms.length, from + Math.max(1, length));
    let sum = 0;
    for (let f = from; f < to; f++) sum += rms[f] ** 2;
    power[i] = sum / Math.max(1, to - from);
  }
  return power;
}

/** Level (dB) of the `count` beats from `from` on; undefined where they run past either end. */
function levelDb(power: Float64Array, from: number, count: number): number | undefined {
  if (count <= 0 || from < 0 || from + count > power.length) return undefined;
  let sum = 0;
  for (let i = from; i < from + count; i++) sum += power[i];
  return Math.max(SILENCE_DB, 10 * Math.log10(sum / count));
}

/** Index into `beatFrames` of the peak beat (-1 without beats). */
export function peakBeat(beatFrames: Int32Array, rms: Float32Array): number {
  const n = beatFrames.length;
  if (n === 0) return -1;
  const power = beatPower(beatFrames, rms);
  const window = Math.min(SUSTAIN_BEATS, n);
  const sustained = Array.from({ length: n - window + 1 }, (_, i) => levelDb(power, i, window)!);
  let loudest = 0;
  for (let i = 1; i < sustained.length; i++) if (sustained[i] > sustained[loudest]) loudest = i;
  let passageStart = loudest;
  while (passageStart > 0 && sustained[passageStart - 1] >= sustained[loudest] - PASSAGE_TOLERANCE_DB) passageStart--;
  let best = passageStart;
  let bestRise = -Infinity;
  for (let i = passageStart; i <= loudest; i++) {
    // Before the track's first beats there is silence: a passage that opens the track rises from it.
    const before = levelDb(power, i - window, window) ?? levelDb(power, 0, i) ?? SILENCE_DB;
    const rise = sustained[i] - before;
    if (rise > bestRise) {
      bestRise = rise;
      best = i;
    }
  }
  return best;
}
