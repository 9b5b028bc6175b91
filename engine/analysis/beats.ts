// Beat times by dynamic programming (Ellis 2007, as librosa.beat.beat_track): the beat sequence
// that best combines strong onsets with spacing close to the tempo period.
import type { LocalPeriods } from './tempo-track.ts';

/** The weight of the spacing penalty (librosa's tightness): per unit of (log of the gap over the period) squared. */
export const TIGHTNESS = 100;
/** A beat's predecessor lies at most this many beat periods back (librosa's window). */
export const MAX_GAP_PERIODS = 2;

/**
 * Beat positions in frames, given onset strength and the beat period (frames); with
 * `localPeriods` (tempo-track.ts: the period at each frame, for a piece that changes tempo), each
 * beat's spacing is judged against the period where it falls.
 */
export function beatFrames(onset: Float32Array, periodFrames: number, localPeriods?: LocalPeriods): Int32Array {
  if (onset.length === 0) return new Int32Array(0);
  const chains = beatChains(onset, periodFrames, localPeriods);
  return chainFrom(chains, bestLast(chains.score, localPeriods ? localPeriods.longest[onset.length - 1] : periodFrames), onset);
}

/** The dynamic programme's chains over the onsets, and the smoothed onset below which a beat comes before the music starts. */
interface BeatChains {
  local: Float64Array;
  score: Float64Array;
  back: Int32Array;
  silentBelow: number;
}

function beatChains(onset: Float32Array, periodFrames: number, localPeriods?: LocalPeriods): BeatChains {
  const local = smoothedOnsets(onset, periodFrames);
  let localMax = 0;
  for (let i = 0; i < local.length; i++) localMax = Math.max(localMax, local[i]);
  const scores = localPeriods ? beatScoresAt(local, localPeriods) : beatScores(local, periodFrames);
  return { local, ...scores, silentBelow: 0.05 * localMax };
}

/** The best-scoring frame within the final beat period. */
function bestLast(score: Float64Array, periodFrames: number): number {
  const n = score.length;
  let last = n - 1;
  let lastScore = -Infinity;
  for (let t = Math.max(0, n - Math.round(periodFrames) - 1); t < n; t++) {
    if (score[t] > lastScore) {
      lastScore = score[t];
      last = t;
    }
  }
  return last;
}

/** The beats backtracked from frame `last`, from the first where the music has started (leading silence carries no onsets). */
function chainFrom({ local, back, silentBelow }: BeatChains, last: number, onset: Float32Array): Int32Array {
  const beats: number[] = [];
  for (let t = last; t >= 0; t = back[t]) beats.push(t);
  beats.reverse();
  let first = 0;
  while (first < beats.length - 1 && local[beats[first]] < silentBelow) first++;
  return evenOutUnheardBeats(Int32Array.from(beats.slice(first)), onset);
}

/** The onsets scaled to their maximum and smoothed with a Gaussian a fraction of a beat wide, as librosa does. */
function smoothedOnsets(onset: Float32Array, periodFrames: number): Float64Array {
  const n = onset.length;
  const radius = Math.max(1, Math.round(periodFrames / 16));
  let norm = 0;
  for (let i = 0; i < n; i++) norm = Math.max(norm, onset[i]);
  norm = norm || 1;
  // Plain loops: typed-array from() with a map function costs ~3x the smoothing itself.
  const scaled = new Float64Array(n);
  const local = new Float64Array(n);
  for (let i = 0; i < n; i++) scaled[i] = onset[i] / norm;
  const kernel = gaussianKernel(radius);
  const width = 2 * radius + 1;
  // Frames a whole kernel from either end take a loop without the bounds checks of the ends:
  // 2,600 frames smoothed in ~50 us instead of ~90 (V8 11.3). Every frame's sum has the same terms
  // in the same order as at the ends, so the result is the same to the bit.
  const innerFrom = Math.min(radius, n), innerTo = Math.max(innerFrom, n - radius);
  for (let i = 0; i < innerFrom; i++) local[i] = smoothedAt(scaled, kernel, radius, i, n);
  for (let i = innerFrom; i < innerTo; i++) {
    let sum = 0;
    for (let k = 0, at = i - radius; k < width; k++, at++) sum += scaled[at] * kernel[k];
    local[i] = sum;
  }
  for (let i = innerTo; i < n; i++) local[i] = smoothedAt(scaled, kernel, radius, i, n);
  return local;
}

/** The smoothing's sum at frame i near an end of the n frames: only the kernel's taps inside them. */
function smoothedAt(scaled: Float64Array, kernel: Float64Array, radius: number, i: number, n: number): number {
  const from = Math.max(-radius, -i), to = Math.min(radius, n - 1 - i);
  let sum = 0;
  for (let j = from; j <= to; j++) sum += scaled[i + j] * kernel[j + radius];
  return sum;
}

/** The Gaussian of 2 * radius + 1 taps, two standard deviations to each side. */
function gaussianKernel(radius: number): Float64Array {
  return Float64Array.from({ length: 2 * radius + 1 }, (_, j) => Math.exp(-0.5 * (((j - radius) / radius) * 2) ** 2));
}

/**
 * The dynamic programme: each frame's best score as a beat (its smoothed onset plus the best
 * predecessor's score minus the spacing penalty, when that is positive) and that predecessor
 * (-1: none). Predecessors lie half a period to two periods back; ties go to the earliest.
 *
 * The penalty is convex in the gap (log-squared, below e periods), so a later predecessor that
 * outscores an earlier one at some frame outscores it at every frame after. The predecessors
 * still in the running are kept in a queue, each with the frame from which it is the best; a new
 * one drops those it beats from their first frame on and starts where it overtakes the last
 * (found by a galloping, then binary, search). The same beats as trying every gap at every
 * frame, in ~1/4 of the time.
 */
export function beatScores(local: Float64Array, periodFrames: number): { score: Float64Array; back: Int32Array } {
  const n = local.length;
  const score = new Float64Array(n);
  const back = new Int32Array(n);
  const predecessors = new Int32Array(n);
  const leadsFrom = new Int32Array(n);
  const minGap = Math.max(1, Math.round(periodFrames / 2));
  // The queue below relies on the penalty being convex in the gap, which the log-squared one is
  // up to e periods: MAX_GAP_PERIODS must stay below that.
  const maxGap = Math.round(periodFrames * MAX_GAP_PERIODS);
  // Frames before the first gap have no predecessor; a period under a quarter of a frame leaves
  // no gap at all, and then no frame has one.
  const firstWithPredecessor = maxGap < minGap ? n : Math.min(n, minGap);
  for (let t = 0; t < firstWithPredecessor; t++) {
    score[t] = local[t];
    back[t] = -1;
  }
  if (firstWithPredecessor === n) return { score, back };
  const penalty = spacingPenalty(periodFrames, maxGap);
  // The predecessors in the running, oldest first, and the frame from which each leads.
  let head = 0;
  let tail = 0;
  for (let t = firstWithPredecessor; t < n; t++) {
    const newest = t - minGap;
    let start = t;
    while (tail > head) {
      const last = predecessors[tail - 1];
      const lastStart = Math.max(leadsFrom[tail - 1], t);
      // Out of reach there, or beaten there: either way `newest` leads from the last's start on.
      if (lastStart - last > maxGap || overtakes(score, penalty, last, newest, lastStart)) {
        tail--;
        continue;
      }
      // At last + maxGap + 1 the last is out of reach: `newest` overtakes it by then.
      start = firstOvertaking(score, penalty, last, newest, lastStart + 1, last + maxGap + 1);
      break;
    }
    predecessors[tail] = newest;
    leadsFrom[tail++] = start;
    while (tail - head > 1 && leadsFrom[head + 1] <= t) head++;
    const from = predecessors[head];
    const best = score[from] - penalty[t - from];
    score[t] = best > 0 ? local[t] + best : local[t];
    back[t] = best > 0 ? from : -1;
  }
  return { score, back };
}

/**
 * The dynamic programme of beatScores with the periods of each frame (tempo-track.ts): every gap
 * from half the shortest to MAX_GAP_PERIODS of the longest is tried, its penalty the smaller of
 * the two periods', ties to the earliest predecessor. The penalty depends on the frame as well as
 * the gap, so beatScores' queue does not apply; pieces that change tempo are few, and this costs
 * a few milliseconds per minute of onsets.
 */
export function beatScoresAt(local: Float64Array, { shortest, longest }: LocalPeriods): { score: Float64Array; back: Int32Array } {
  const n = local.length;
  const score = new Float64Array(n);
  const back = new Int32Array(n);
  let longestAll = 0;
  for (let t = 0; t < n; t++) longestAll = Math.max(longestAll, longest[t]);
  const logGap = Float64Array.from({ length: Math.round(longestAll * MAX_GAP_PERIODS) + 1 }, (_, gap) => Math.log(gap));
  for (let t = 0; t < n; t++) {
    const minGap = Math.max(1, Math.round(shortest[t] / 2));
    const maxGap = Math.min(t, Math.round(longest[t] * MAX_GAP_PERIODS));
    const logShortest = Math.log(shortest[t]), logLongest = Math.log(longest[t]);
    let best = -Infinity;
    let from = -1;
    for (let gap = maxGap; gap >= minGap; gap--) {
      const penalty = TIGHTNESS * Math.min((logGap[gap] - logShortest) ** 2, (logGap[gap] - logLongest) ** 2);
      const candidate = score[t - gap] - penalty;
      if (candidate > best) {
        best = candidate;
        from = t - gap;
      }
    }
    score[t] = best > 0 ? local[t] + best : local[t];
    back[t] = best > 0 ? from : -1;
  }
  return { score, back };
}

/** The spacing penalty for each gap of 1 to maxGap frames (index: the gap; 0 is unused), computed once per gap, not per pair of frames. */
function spacingPenalty(periodFrames: number, maxGap: number): Float64Array {
  // A plain loop: typed-array from() with a map function took ~10% of the programme's time on a 30 s clip.
  const penalty = new Float64Array(maxGap + 1);
  for (let gap = 1; gap <= maxGap; gap++) penalty[gap] = TIGHTNESS * Math.log(gap / periodFrames) ** 2;
  return penalty;
}

/**
 * Whether predecessor `later` outscores `earlier` at frame t, both within reach. Strictly: on a
 * tie the earlier predecessor stays, so ties go to the earliest frame. A plain function of the
 * arrays, not a closure over them: ~12% less time for the programme (V8 11.3).
 */
function overtakes(score: Float64Array, penalty: Float64Array, earlier: number, later: number, t: number): boolean {
  return score[later] - penalty[t - later] > score[earlier] - penalty[t - earlier];
}

/** The first frame in [lo, hi] at which `later` overtakes `earlier` (it does at hi, where `earlier` is out of reach): galloping from lo, then bisecting. */
function firstOvertaking(score: Float64Array, penalty: Float64Array, earlier: number, later: number, lo: number, hi: number): number {
  let step = 1;
  for (; lo + step < hi && !overtakes(score, penalty, earlier, later, lo + step); step *= 2) lo += step + 1;
  if (lo + step < hi) hi = lo + step;
  // Not overtaken before lo; overtaken at hi. Every frame tried is below hi: `earlier` in reach.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (overtakes(score, penalty, earlier, later, mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** An onset counts for a beat within this many frames of it (about +-23 ms at 86 frames/s). */
const HEARD_TOLERANCE_FRAMES = 2;
/** A beat is heard when an onset near it is at least this share of the median beat's onset. */
const HEARD_SHARE = 0.1;

/** The strongest onset within HEARD_TOLERANCE_FRAMES of `frame`: what a beat there is heard by. */
export function onsetSupport(onset: Float32Array, frame: number): number {
  let strongest = 0;
  for (let f = Math.max(0, frame - HEARD_TOLERANCE_FRAMES); f <= Math.min(onset.length - 1, frame + HEARD_TOLERANCE_FRAMES); f++) strongest = Math.max(strongest, onset[f]);
  return strongest;
}

/**
 * Beats across a stretch with no onsets (a break, a held chord) are placed by the spacing penalty
 * alone, and the dynamic programme lets them drift by a frame or more per beat: across a 16-beat
 * silence, 30 ms by its end. Listeners hear those beats as evenly spaced between the last beat
 * before the stretch and the first after it, so that is where they go (in place).
 */
function evenOutUnheardBeats(beats: Int32Array, onset: Float32Array): Int32Array {
  const support = Float64Array.from(beats, (frame) => onsetSupport(onset, frame));
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

/** The index of the first time in `sorted` (ascending seconds) at or after `t`; sorted.length when none is. */
export function firstAtOrAfter(sorted: ArrayLike<number>, t: number): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The time in `sorted` (ascending seconds: beats, bar lines) nearest to `t`; undefined when empty. */
export function nearestTime(sorted: ArrayLike<number>, t: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const lo = Math.min(firstAtOrAfter(sorted, t), sorted.length - 1);
  return lo > 0 && Math.abs(sorted[lo - 1] - t) <= Math.abs(sorted[lo] - t) ? sorted[lo - 1] : sorted[lo];
}
