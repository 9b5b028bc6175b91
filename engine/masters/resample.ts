// Band-limited resampling of a master to the clip rate, once at ingest: a polyphase windowed-sinc
// filter (Kaiser window). The rates are integers, so output sample i sits at input position
// i·M/L exactly (L/M the ratio in lowest terms) and needs only the L filter phases, computed once.
// Sample 0 of the output is sample 0 of the input: a time in the original is the same time in the
// resampled audio, which is what keeps clips and hit points exact against the original's timeline.

/**
 * Zero crossings of the sinc on each side of a tap set. With KAISER_BETA the transition band is
 * about 5.7 kHz wide at 48 kHz in, centred on PASSBAND_FRACTION of the lower Nyquist: flat to
 * ~17 kHz (what LAME keeps at 128 kbps), ~85 dB down from ~22.7 kHz, so a 48 kHz master's content
 * above 22.05 kHz does not fold back (test/engine/masters.test.ts). About 5 ms per second of
 * audio per channel.
 */
const HALF_ZERO_CROSSINGS = 20;
const KAISER_BETA = 8;
/** The filter's cutoff (its half-amplitude point) as a fraction of the lower Nyquist frequency. */
const PASSBAND_FRACTION = 0.9;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The zeroth-order modified Bessel function (power series), for the Kaiser window. */
function besselI0(x: number): number {
  let sum = 1, term = 1;
  for (let k = 1; term > 1e-12 * sum; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
  }
  return sum;
}

interface Polyphase {
  /** Taps per phase. */
  taps: number;
  /** Input samples before the output position where a phase's first tap sits. */
  reach: number;
  /** phases × taps coefficients, phase p for output positions with fractional part p / L. */
  table: Float32Array;
}

function polyphase(up: number, down: number): Polyphase {
  const cutoff = Math.min(1, up / down) * PASSBAND_FRACTION; // of the input's Nyquist
  const halfWidth = HALF_ZERO_CROSSINGS / cutoff; // input samples either side
  const reach = Math.ceil(halfWidth) - 1;
  const taps = 2 * Math.ceil(halfWidth);
  const table = new Float32Array(up * taps);
  const norm = besselI0(KAISER_BETA);
  for (let p = 0; p < up; p++) {
    const fraction = p / up;
    for (let k = 0; k < taps; k++) {
      const t = k - reach - fraction; // input sample's distance from the output position
      const x = t / halfWidth;
      const window = Math.abs(x) >= 1 ? 0 : besselI0(KAISER_BETA * Math.sqrt(1 - x * x)) / norm;
      const sinc = t === 0 ? 1 : Math.sin(Math.PI * cutoff * t) / (Math.PI * cutoff * t);
      table[p * taps + k] = cutoff * sinc * window;
    }
  }
  return { taps, reach, table };
}

/** `input` at `fromRate` resampled to `toRate`: round(length · toRate / fromRate) samples. */
export function resample(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (fromRate === toRate) return input;
  const g = gcd(fromRate, toRate);
  const up = toRate / g, down = fromRate / g;
  const { taps, reach, table } = polyphase(up, down);
  const out = new Float32Array(Math.round((input.length * toRate) / fromRate));
  for (let i = 0; i < out.length; i++) {
    const position = i * down; // in 1/up input samples: exact integers
    const base = Math.floor(position / up);
    const phase = position - base * up;
    const first = base - reach;
    const row = phase * taps;
    let sum = 0;
    if (first >= 0 && first + taps <= input.length) {
      for (let k = 0; k < taps; k++) sum += input[first + k] * table[row + k];
    } else {
      for (let k = 0; k < taps; k++) {
        const j = first + k;
        if (j >= 0 && j < input.length) sum += input[j] * table[row + k];
      }
    }
    out[i] = sum;
  }
  return out;
}
