// Tempo in BPM from the autocorrelation of the onset strength, weighted by a log-normal prior
// around 120 BPM (as librosa), then the metrical level: the pulse twice as fast is the beat only
// when the beat grid cannot tell its beats from its off-beats (a uniform click or a kick-snare on
// every beat) and that faster pulse is itself clean (nothing between its beats). A uniform stream
// of subdivisions at every level (arpeggios, hi-hats) stays at the level the prior prefers: judged
// by the autocorrelation alone, such streams were read at twice the tempo listeners (and aubio,
// soundstretch and bpm-tools) give.
import { offbeatRatios } from './pulse-grid.ts';
import { BEATS_PER_BAR } from './bars.ts';

export const MIN_BPM = 40;
export const MAX_BPM = 220;
const PRIOR_CENTER_BPM = 120;
const PRIOR_OCTAVES = 1;
/**
 * Weight of the bar level (a bar of the candidate's beats, 4/4 as bars.ts) in a candidate's
 * strength: a beat period repeats as bars, a 3:2 or 4:3 reading of it does not. Chosen on the
 * tuning set of written accompaniments (`npm run bench -- tempo`), where the tempo is right most
 * often from 0.5 on and songs of three beats a bar begin to lose from 0.75. Taking a bar of 3
 * beats as well let a 3:2 reading (165 BPM for 110) win by its bar of 3 on one piece.
 */
const BAR_WEIGHT = 0.5;
/**
 * Candidate periods are tried every this many frames, not only at whole lags: a whole lag is up to
 * half a frame off the true period, so its bar (4 periods) up to 2 frames off the bar's
 * autocorrelation peak, past the peak's one-frame width. Read at whole lags, a 150 BPM module lost
 * its bar and was read at 100 (2:3).
 */
const PERIOD_STEP_FRAMES = 0.25;
/** Off-beats at least this strong relative to the beats: the grid does not tell them apart. */
const UNACCENTED_OFFBEAT_RATIO = 0.8;
/** The faster pulse counts as clean when what lies between its beats is at most this strong. */
const CLEAN_PULSE_OFFBEAT_RATIO = 0.3;

/** Lags whose sums autocorrelation takes in one pass over the values. */
const LAGS_PER_PASS = 4;

/**
 * The mean product of values `lag` frames apart, for lags 0..maxLag: exact sums, each added in
 * order of the later frame, on which the tempo's decisions were tuned (exact ties in tracker
 * modules break by them). LAGS_PER_PASS lags share a pass over the values, each with its own sum
 * in the same order: the same sums to the bit, in about half the time of one pass per lag.
 */
export function autocorrelation(values: Float32Array, maxLag: number): Float64Array {
  const n = values.length;
  const out = new Float64Array(maxLag + 1);
  let lag = 0;
  for (; lag + LAGS_PER_PASS - 1 <= maxLag; lag += LAGS_PER_PASS) {
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    // The frames before all four lags' sums have begun.
    let i = lag;
    for (; i < Math.min(n, lag + LAGS_PER_PASS - 1); i++) {
      const v = values[i];
      s0 += v * values[i - lag];
      if (i >= lag + 1) s1 += v * values[i - lag - 1];
      if (i >= lag + 2) s2 += v * values[i - lag - 2];
    }
    for (; i < n; i++) {
      const v = values[i];
      s0 += v * values[i - lag];
      s1 += v * values[i - lag - 1];
      s2 += v * values[i - lag - 2];
      s3 += v * values[i - lag - 3];
    }
    out[lag] = s0 / (n - lag);
    out[lag + 1] = s1 / (n - lag - 1);
    out[lag + 2] = s2 / (n - lag - 2);
    out[lag + 3] = s3 / (n - lag - 3);
  }
  for (; lag <= maxLag; lag++) {
    let sum = 0;
    for (let i = lag; i < n; i++) sum += values[i] * values[i - lag];
    out[lag] = sum / (n - lag);
  }
  return out;
}

/** ACF value at a fractional lag, with the best of the neighbouring integer lags (peaks are one frame wide). */
function acfAt(acf: Float64Array, lag: number): number {
  const i = Math.round(lag);
  let best = 0;
  for (let j = i - 1; j <= i + 1; j++) if (j > 0 && j < acf.length) best = Math.max(best, acf[j]);
  return best;
}

/** The candidate beat periods at a frame rate, PERIOD_STEP_FRAMES apart. */
interface Candidates {
  /** The first (MAX_BPM) and last (MIN_BPM) whole lags, in frames. */
  minLag: number;
  maxLag: number;
  /** The tempo prior of candidate k, the period minLag + k * PERIOD_STEP_FRAMES. */
  priors: Float64Array;
}

/** The candidate periods from MAX_BPM down to MIN_BPM at `frameRate`. */
function candidatesAt(frameRate: number): Candidates {
  const minLag = Math.floor((60 * frameRate) / MAX_BPM);
  const maxLag = Math.ceil((60 * frameRate) / MIN_BPM);
  const priors = Float64Array.from({ length: Math.floor((maxLag - minLag) / PERIOD_STEP_FRAMES) + 1 }, (_, k) => {
    const bpm = (60 * frameRate) / (minLag + k * PERIOD_STEP_FRAMES);
    return Math.exp(-0.5 * (Math.log2(bpm / PRIOR_CENTER_BPM) / PRIOR_OCTAVES) ** 2);
  });
  return { minLag, maxLag, priors };
}

/** Each candidate period's score: its strength (beat, 2 beats, bar) times its prior. */
function candidateScores(acf: Float64Array, { minLag, priors }: Candidates): Float64Array {
  const scores = new Float64Array(priors.length);
  for (let k = 0; k < priors.length; k++) {
    const period = minLag + k * PERIOD_STEP_FRAMES;
    if (period > acf.length - 1) return scores.subarray(0, k);
    // Sum over the first harmonic of the period and its bar: a true beat period repeats.
    const strength = acf[Math.round(period)] + 0.5 * acfAt(acf, 2 * period) + BAR_WEIGHT * acfAt(acf, BEATS_PER_BAR * period);
    scores[k] = strength * priors[k];
  }
  return scores;
}

/**
 * How far (frames) interpolation may move a lag: a parabola's vertex lies within half a frame of
 * its middle point only when that point is the highest of the three. Off a peak (the
 * autocorrelation still rising past the lag) the vertex can fall frames away: a Wesnoth piece's
 * clip scored best at lag 53 between 3.18 and 3.84 and was read at 56.9 frames, 90.8 BPM for a
 * 100 BPM piece, its beats drifting a third of a beat by H.
 */
const MAX_INTERPOLATION_FRAMES = 0.5;

/** The period at the autocorrelation's peak near `lag`, by parabolic interpolation (fractional frames). */
function interpolatedPeriod(acf: Float64Array, lag: number): number {
  if (lag <= 1 || lag >= acf.length - 1) return lag;
  const a = acf[lag - 1];
  const b = acf[lag];
  const c = acf[lag + 1];
  const denominator = a - 2 * b + c;
  if (denominator >= 0) return lag;
  const offset = (0.5 * (a - c)) / denominator;
  return lag + Math.max(-MAX_INTERPOLATION_FRAMES, Math.min(MAX_INTERPOLATION_FRAMES, offset));
}

/** Estimated beat period in frames (fractional), from onset strength sampled at frameRate; `autocorrelationOf` computes the autocorrelation. */
export function tempoPeriodFrames(onset: Float32Array, frameRate: number, autocorrelationOf = autocorrelation): number {
  const candidates = candidatesAt(frameRate);
  const acf = autocorrelationOf(onset, Math.min(candidates.maxLag * 4 + 2, onset.length - 1));
  const scores = candidateScores(acf, candidates);
  let best = -1;
  for (let k = 0; k < scores.length; k++) if (best < 0 || scores[k] > scores[best]) best = k;
  const bestLag = best < 0 ? 0 : Math.round(candidates.minLag + best * PERIOD_STEP_FRAMES);
  if (bestLag === 0) return (60 * frameRate) / PRIOR_CENTER_BPM;
  return metricalLevel(onset, interpolatedPeriod(acf, bestLag), frameRate);
}

/** The beat period among `period` and its halves (see the top of the file), never faster than MAX_BPM. */
function metricalLevel(onset: Float32Array, period: number, frameRate: number): number {
  const fastestPeriod = (60 * frameRate) / MAX_BPM;
  const offbeatRatio = offbeatRatios(onset, frameRate);
  while (period / 2 >= fastestPeriod) {
    // Halved only when both the beats' off-beats are as strong as they (unaccented) and the faster pulse is clean.
    if (offbeatRatio(period) < UNACCENTED_OFFBEAT_RATIO || offbeatRatio(period / 2) > CLEAN_PULSE_OFFBEAT_RATIO) break;
    period /= 2;
  }
  return period;
}
