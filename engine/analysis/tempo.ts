// Tempo in BPM from the autocorrelation of the onset strength, weighted by a log-normal prior
// around 120 BPM (as librosa), with an octave check: a pulse twice as fast that is nearly as
// strong is the real beat (uniform click or drum patterns), a weaker one is a subdivision.

export const MIN_BPM = 40;
export const MAX_BPM = 220;
const PRIOR_CENTER_BPM = 120;
const PRIOR_OCTAVES = 1;
/** How strong the half-period pulse must be, relative to the chosen one, to double the tempo. */
const DOUBLE_IF_HALF_PERIOD_RATIO = 0.8;

export function autocorrelation(values: Float32Array, maxLag: number): Float64Array {
  const out = new Float64Array(maxLag + 1);
  for (let lag = 0; lag <= maxLag; lag++) {
    let sum = 0;
    for (let i = lag; i < values.length; i++) sum += values[i] * values[i - lag];
    out[lag] = sum / (values.length - lag);
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

/** Estimated beat period in frames (fractional), from onset strength sampled at frameRate. */
export function tempoPeriodFrames(onset: Float32Array, frameRate: number): number {
  const minLag = Math.floor((60 * frameRate) / MAX_BPM);
  const maxLag = Math.ceil((60 * frameRate) / MIN_BPM);
  const acf = autocorrelation(onset, Math.min(maxLag * 2 + 2, onset.length - 1));
  let bestLag = 0;
  let bestScore = -Infinity;
  for (let lag = minLag; lag <= Math.min(maxLag, acf.length - 1); lag++) {
    const bpm = (60 * frameRate) / lag;
    const prior = Math.exp(-0.5 * (Math.log2(bpm / PRIOR_CENTER_BPM) / PRIOR_OCTAVES) ** 2);
    // Sum over the first harmonics of the period: a true beat period repeats.
    const strength = acf[lag] + 0.5 * acfAt(acf, 2 * lag);
    const score = strength * prior;
    if (score > bestScore) {
      bestScore = score;
      bestLag = lag;
    }
  }
  if (bestLag === 0) return (60 * frameRate) / PRIOR_CENTER_BPM;
  // Parabolic interpolation around the peak for a fractional period.
  let period = bestLag;
  if (bestLag > 1 && bestLag < acf.length - 1) {
    const a = acf[bestLag - 1];
    const b = acf[bestLag];
    const c = acf[bestLag + 1];
    const denominator = a - 2 * b + c;
    if (denominator < 0) period = bestLag + (0.5 * (a - c)) / denominator;
  }
  while (period / 2 >= minLag && acfAt(acf, period / 2) >= DOUBLE_IF_HALF_PERIOD_RATIO * acfAt(acf, period)) period /= 2;
  return period;
}
