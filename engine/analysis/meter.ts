// The meter: how many beats a bar has. Chords change on the bar line and the bar's first beat is
// often struck hardest, so the per-beat evidence for a downbeat (harmonic change and accent)
// repeats with the bar's period: its autocorrelation over beats is high at lags that are whole
// bars and low at the others. A bar whose two halves repeat nearly as clearly as the whole (6 as
// two threes) reads as the half: a chord every two bars of 3 is the same evidence as 6 in two
// equal threes, and bars of 3 are far the more common, as bars of 4 are read where chords change
// every two bars of 4 (8 is no candidate).
import { standardised } from './standardised.ts';

/** Bar lengths considered, beats. */
export const METER_CANDIDATES = [3, 4, 5, 6, 7] as const;
/** The bar length assumed where the evidence does not decide (most music is in 4). */
export const DEFAULT_BEATS_PER_BAR = 4;
/** Lags compared (beats 1..MAX_LAG): two bars of the longest candidate, so each candidate has at least two lags that are whole bars. */
const MAX_LAG = 2 * Math.max(...METER_CANDIDATES);
/** Fewest beats whose evidence is read (three times MAX_LAG, so even the longest lag averages two MAX_LAGs of products); shorter pieces get DEFAULT_BEATS_PER_BAR. */
const MIN_BEATS = 3 * MAX_LAG;
/** Weight of the accent's autocorrelation against the harmonic change's. */
export const ACCENT_WEIGHT = 0.5;
/**
 * How much stronger (meterStrengths, correlation units) a candidate must be than 4 to replace it:
 * other meters are rarer, and chance patterns of the evidence make another length look a little
 * stronger in some pieces in 4 (by up to 0.06 in the tracker modules of tecnoballz-data, all in
 * 4, whose strength of 4 runs 0.04-0.99); synthetic pieces in 3, 5, 6 and 7 beat 4 by 0.5 or more.
 */
const OTHER_METER_MARGIN = 0.15;
/**
 * The least strength (correlation units) of a candidate other than 4 for it to replace 4, however
 * weak 4 is: where no bar length repeats clearly (ambient or rubato music, a weakly tracked beat)
 * chance alone puts one candidate 0.1-0.2 above the others; synthetic pieces in 3, 5, 6 and 7 have
 * 0.68 or more.
 */
const MIN_OTHER_METER_STRENGTH = 0.25;

/**
 * Beats each side of a beat whose mean is taken away from it before the autocorrelation: a piece's
 * sections differ in loudness and harmonic pace, and that slow change would otherwise correlate
 * every lag alike. 2 * LOCAL_MEAN_RADIUS + 1 = 17 beats is a multiple of no candidate, and at least
 * two bars of each, so it takes little of any bar's own pattern away.
 */
const LOCAL_MEAN_RADIUS = 8;

/** Each value less the mean of the values within `radius` of it. */
function lessLocalMean(values: Float64Array, radius: number): Float64Array {
  return values.map((v, i) => {
    const from = Math.max(0, i - radius);
    const to = Math.min(values.length, i + radius + 1);
    let sum = 0;
    for (let j = from; j < to; j++) sum += values[j];
    return v - sum / (to - from);
  });
}

/**
 * The values that are at least their neighbours' (one beat each side), the others 0: a chord change
 * a little off the beat shows at two beats, and the second would correlate lags one beat off the
 * bar's.
 */
function localPeaks(values: Float64Array): Float64Array {
  return values.map((v, i) => (v >= (values[i - 1] ?? 0) && v >= (values[i + 1] ?? 0) ? v : 0));
}

/** Autocorrelation at lags 0..maxLag of the values less their local mean, standardised: the mean product of values `lag` apart (1 at lag 0 unless they are all equal). */
function autocorrelation(values: Float64Array, maxLag: number): Float64Array {
  const z = standardised(lessLocalMean(values, LOCAL_MEAN_RADIUS));
  const acf = new Float64Array(maxLag + 1);
  for (let lag = 0; lag <= maxLag && lag < z.length; lag++) {
    let sum = 0;
    for (let i = 0; i + lag < z.length; i++) sum += z[i] * z[i + lag];
    acf[lag] = sum / (z.length - lag);
  }
  return acf;
}

/**
 * The evidence's periodicity over beats, lags 0..MAX_LAG: the autocorrelation of the harmonic
 * change at each beat, plus ACCENT_WEIGHT times the accent's, over 1 + ACCENT_WEIGHT.
 */
export function beatPeriodicity(harmonicChange: Float64Array, accent: Float64Array): Float64Array {
  const h = autocorrelation(localPeaks(harmonicChange), MAX_LAG);
  const a = autocorrelation(accent, MAX_LAG);
  return h.map((v, lag) => (v + ACCENT_WEIGHT * a[lag]) / (1 + ACCENT_WEIGHT));
}

/**
 * For each of METER_CANDIDATES m, the mean periodicity at lags 1..MAX_LAG that are multiples of m
 * less the mean at the other lags. Bars of twice the true length score less than the true
 * length, as the true bar's odd multiples count against them; bars of half the true length score
 * less too, as half their multiples are not whole true bars.
 */
export function meterStrengths(periodicity: Float64Array): Map<number, number> {
  const strengths = new Map<number, number>();
  for (const m of METER_CANDIDATES) {
    let on = 0, onCount = 0, off = 0, offCount = 0;
    for (let lag = 1; lag <= MAX_LAG; lag++) {
      if (lag % m === 0) [on, onCount] = [on + periodicity[lag], onCount + 1];
      else [off, offCount] = [off + periodicity[lag], offCount + 1];
    }
    strengths.set(m, on / onCount - off / offCount);
  }
  return strengths;
}

/**
 * A bar whose half is a candidate too reads as the half where the half's strength is at least this
 * share of the whole's: its two halves are nearly as alike as two whole bars. Where the halves
 * differ (a 6 of one chord, struck hard on 1 and less on 4) the half's strength is 0.51-0.61 of
 * the whole's in the synthetic pieces of test/engine/meter.test.ts, which stay in 6. On the tuning
 * set (`npm run bench -- tempo`, beats per bar right on the songs whose beats are tracked right)
 * songs of 3 beats a bar are read right 35 of 77 times without the rule, most of the rest as 6,
 * and 50 with it; no song of 4 or 5 changes.
 */
const HALF_BAR_SHARE = 0.7;

/**
 * Beats per bar: the strongest candidate (meterStrengths) where it beats 4 by OTHER_METER_MARGIN
 * and reaches MIN_OTHER_METER_STRENGTH, else DEFAULT_BEATS_PER_BAR (4); 4 too for pieces too short
 * to tell. A winner whose half is a candidate as strong as HALF_BAR_SHARE of it is read as the half.
 */
export function beatsPerBar(harmonicChange: Float64Array, accent: Float64Array): number {
  if (harmonicChange.length < MIN_BEATS) return DEFAULT_BEATS_PER_BAR;
  const strengths = meterStrengths(beatPeriodicity(harmonicChange, accent));
  let best = DEFAULT_BEATS_PER_BAR;
  let bestStrength = Math.max(strengths.get(DEFAULT_BEATS_PER_BAR)! + OTHER_METER_MARGIN, MIN_OTHER_METER_STRENGTH);
  for (const [m, strength] of strengths) if (strength > bestStrength) [best, bestStrength] = [m, strength];
  const half = strengths.get(best / 2);
  return half !== undefined && half >= HALF_BAR_SHARE * strengths.get(best)! ? best / 2 : best;
}
