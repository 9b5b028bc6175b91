// Beat times by dynamic programming (Ellis 2007, as librosa.beat.beat_track): the beat sequence
// that best combines strong onsets with spacing close to the tempo period.

/** The weight of the spacing penalty (librosa's tightness): per unit of (log of the gap over the period) squared. */
export const TIGHTNESS = 100;
/** A beat's predecessor lies at most this many beat periods back (librosa's window). */
export const MAX_GAP_PERIODS = 2;

/** The dynamic programme's working arrays for some number of frames. */
interface WorkArrays {
  scaled: Float64Array;
  local: Float64Array;
  score: Float64Array;
  back: Int32Array;
  predecessors: Int32Array;
  leadsFrom: Int32Array;
}

/** Sizes whose working arrays are kept: a plan tracks its clips at two (half and full rate). */
const KEPT_WORK_SIZES = 4;
const workBySize = new Map<number, WorkArrays>();
/** The same for the programme run backwards (phaseRivalAt), which must not overwrite the forward run's. */
const backwardWorkBySize = new Map<number, WorkArrays>();

/**
 * Working arrays of exactly `frames` frames, kept from call to call for the last few sizes (one
 * thread runs one call at a time): an edit's plan beat-tracks tens of clips of one length, and
 * their ~200 KB of new arrays each made the young-generation collections (2-4 ms each, every ~50
 * plans) the plan's p99. Exact sizes, not views of bigger ones: views of a track's 36,000-frame
 * arrays made a plan's tracking ~15% slower.
 */
function workArrays(frames: number, kept = workBySize): WorkArrays {
  let work = kept.get(frames);
  if (work) return work;
  work = { scaled: new Float64Array(frames), local: new Float64Array(frames), score: new Float64Array(frames), back: new Int32Array(frames), predecessors: new Int32Array(frames), leadsFrom: new Int32Array(frames) };
  if (kept.size >= KEPT_WORK_SIZES) kept.delete(kept.keys().next().value!);
  kept.set(frames, work);
  return work;
}

/** Beat positions in frames, given onset strength and the beat period (frames). */
export function beatFrames(onset: Float32Array, periodFrames: number): Int32Array {
  if (onset.length === 0) return new Int32Array(0);
  const chains = beatChains(onset, periodFrames);
  return chainFrom(chains, bestLast(chains.score, periodFrames), onset);
}

/**
 * Beats, and the best chain of beats that ends in another phase, with its score as a share of the
 * beats' (1: a tie); and the programme's chains, for phaseRivalAt (they live in working arrays
 * kept per length: valid until the next beat tracking of as many frames).
 */
export interface BeatsAndRival {
  beats: Int32Array;
  rival: Int32Array;
  rivalRatio: number;
  chains: BeatChains;
}

/**
 * beatFrames, and the best chain that ends in another phase (its last beat at least a quarter
 * period from the chosen one's): when it scores nearly as well, a small change to the onsets (a
 * clip re-encoded and analysed on its own frames) can make it the beats.
 */
export function beatFramesAndRival(onset: Float32Array, periodFrames: number): BeatsAndRival {
  if (onset.length === 0) return { beats: new Int32Array(0), rival: new Int32Array(0), rivalRatio: 0, chains: NO_CHAINS };
  const chains = beatChains(onset, periodFrames);
  const last = bestLast(chains.score, periodFrames);
  const rivalLast = bestLast(chains.score, periodFrames, last);
  return { beats: chainFrom(chains, last, onset), rival: chainFrom(chains, rivalLast, onset), rivalRatio: chains.score[rivalLast] / chains.score[last], chains };
}

/**
 * The best chain of beats through another phase at `beatFrame` (a frame a quarter to half a
 * period from it), as a share of the best chain through `beatFrame` itself (1: a tie). The chain
 * that ends in another phase (beatFramesAndRival) mostly rejoins the beats long before a beat in
 * the middle of the clip; a chain in the other phase all through can still score within a hair,
 * and the encoded clip's onsets then take it (held out: two clips heard their whole grid a third
 * and a half beat off, their peak 0.19-0.23 s early). A chain's score through a frame is the
 * programme's score there plus the same programme's run backwards from the end, less the frame's
 * own onset counted twice (the spacing penalty is symmetric in the gap).
 */
export function phaseRivalAt({ local, score }: BeatChains, periodFrames: number, beatFrame: number): number {
  const n = local.length;
  if (n === 0) return 0;
  const work = workArrays(n, backwardWorkBySize);
  const first = Math.max(0, Math.ceil(beatFrame - periodFrames / 2));
  // The backward run's input, the smoothed onsets reversed, goes where a forward run keeps its
  // scaled onsets. It runs from the clip's end back to `first` only: its score at a frame depends
  // only on the frames it has passed, and none before `first` is read (on average half the run).
  const reversed = work.scaled.subarray(0, Math.max(1, n - first));
  for (let i = 0; i < reversed.length; i++) reversed[i] = local[n - 1 - i];
  const backward = beatScores(reversed, periodFrames, work).score;
  const through = (t: number) => score[t] + backward[n - 1 - t] - local[t];
  // Best through this phase (within a quarter period of the beat: evenOutUnheardBeats may have
  // moved it off the programme's own frame) against the best through another.
  let own = 0;
  let rival = 0;
  for (let t = first; t <= Math.min(n - 1, beatFrame + periodFrames / 2); t++) {
    if (Math.abs(t - beatFrame) < periodFrames / 4) own = Math.max(own, through(t));
    else rival = Math.max(rival, through(t));
  }
  return own > 0 ? rival / own : 0;
}

/** The dynamic programme's chains over the onsets, and the smoothed onset below which a beat comes before the music starts. */
export interface BeatChains {
  local: Float64Array;
  score: Float64Array;
  back: Int32Array;
  silentBelow: number;
}

/** The chains of no onsets at all. */
const NO_CHAINS: BeatChains = { local: new Float64Array(0), score: new Float64Array(0), back: new Int32Array(0), silentBelow: 0 };

function beatChains(onset: Float32Array, periodFrames: number): BeatChains {
  const local = smoothedOnsets(onset, periodFrames);
  let localMax = 0;
  for (let i = 0; i < local.length; i++) localMax = Math.max(localMax, local[i]);
  return { local, ...beatScores(local, periodFrames), silentBelow: 0.05 * localMax };
}

/** The best-scoring frame within the final beat period; with `awayFrom`, the best at least a quarter period from that frame. */
function bestLast(score: Float64Array, periodFrames: number, awayFrom?: number): number {
  const n = score.length;
  let last = n - 1;
  let lastScore = -Infinity;
  for (let t = Math.max(0, n - Math.round(periodFrames) - 1); t < n; t++) {
    if (awayFrom !== undefined && Math.abs(t - awayFrom) < periodFrames / 4) continue;
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
  const { scaled, local } = workArrays(n);
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

const kernels = new Map<number, Float64Array>();

/** The Gaussian of 2 * radius + 1 taps, two standard deviations to each side (made once per radius). */
function gaussianKernel(radius: number): Float64Array {
  let kernel = kernels.get(radius);
  if (!kernel) {
    kernel = Float64Array.from({ length: 2 * radius + 1 }, (_, j) => Math.exp(-0.5 * (((j - radius) / radius) * 2) ** 2));
    kernels.set(radius, kernel);
  }
  return kernel;
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
 *
 * Only frames [0, local.length) of the returned arrays are written: the working arrays may be
 * longer (phaseRivalAt runs it on part of a clip), and what lies past that is left from before.
 */
export function beatScores(local: Float64Array, periodFrames: number, work = workArrays(local.length)): { score: Float64Array; back: Int32Array } {
  const n = local.length;
  const { score, back, predecessors, leadsFrom } = work;
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
export function evenOutUnheardBeats(beats: Int32Array, onset: Float32Array): Int32Array {
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
