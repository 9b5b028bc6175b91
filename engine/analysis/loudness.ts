// Integrated loudness (ITU-R BS.1770-4 / EBU R128), as ffmpeg's `ebur128` filter and libebur128
// measure it: K-weighting, mean square per 400 ms block (75% overlap), an absolute gate at
// -70 LUFS and a relative gate 10 LU below the loudness of the blocks that passed the first.

/** BS.1770's offset that makes a 1 kHz sine at 0 dBFS read 0 LUFS through the K-weighting. */
const LOUDNESS_OFFSET_DB = -0.691;
const BLOCK_SECONDS = 0.4;
/** Blocks start every 100 ms (75% overlap): each block is the sum of 4 such steps. */
const STEP_SECONDS = 0.1;
const STEPS_PER_BLOCK = Math.round(BLOCK_SECONDS / STEP_SECONDS);
const ABSOLUTE_GATE_LUFS = -70;
const RELATIVE_GATE_LU = -10;

// The K-weighting filter's analogue parameters, from which libebur128 and ffmpeg compute the
// coefficients for any sample rate (BS.1770's table gives them at 48 kHz only; these reproduce it).
const SHELF_HZ = 1681.974450955533;
const SHELF_GAIN_DB = 3.999843853973347;
const SHELF_Q = 0.7071752369554196;
/** libebur128's exponent for the shelf's band gain relative to its high-frequency gain. */
const SHELF_BAND_EXPONENT = 0.4996667741545416;
const HIGHPASS_HZ = 38.13547087602444;
const HIGHPASS_Q = 0.5003270373238773;

/** A biquad as b0, b1, b2, a1, a2 (a0 = 1). */
type Biquad = [number, number, number, number, number];

/** Stage 1: the high shelf that models the head (+4 dB above ~1.7 kHz). */
export function shelfFilter(sampleRate: number): Biquad {
  const k = Math.tan((Math.PI * SHELF_HZ) / sampleRate);
  const vh = 10 ** (SHELF_GAIN_DB / 20);
  const vb = vh ** SHELF_BAND_EXPONENT;
  const a0 = 1 + k / SHELF_Q + k * k;
  return [
    (vh + (vb * k) / SHELF_Q + k * k) / a0,
    (2 * (k * k - vh)) / a0,
    (vh - (vb * k) / SHELF_Q + k * k) / a0,
    (2 * (k * k - 1)) / a0,
    (1 - k / SHELF_Q + k * k) / a0,
  ];
}

/** Stage 2: the RLB high-pass (~38 Hz). Its numerator is 1, -2, 1, unnormalised, as in the standard. */
export function highpassFilter(sampleRate: number): Biquad {
  const k = Math.tan((Math.PI * HIGHPASS_HZ) / sampleRate);
  const a0 = 1 + k / HIGHPASS_Q + k * k;
  return [1, -2, 1, (2 * (k * k - 1)) / a0, (1 - k / HIGHPASS_Q + k * k) / a0];
}

/**
 * Adds each 100 ms step's sum of squared K-weighted samples of one channel to `steps`.
 *
 * Both biquads run in one loop over locals, in doubles, two samples per turn. Why two: a biquad's
 * recursion is a chain (each output waits for the previous one's multiply and add), which left
 * the CPU idle most of the time (4 stereo minutes at 44.1 kHz: 120-130 ms one sample per turn,
 * 70-100 ms two, on the 2-core machine). Expanding the recursion one step,
 *   y[n+1] = f[n+1] - a1 f[n] + (a1^2 - a2) y[n-1] + a1 a2 y[n-2]   (f: the feed-forward part)
 * computes y[n] and y[n+1] from the same two past outputs, side by side: half the chain per sample
 * (the same values to ~1e-14).
 */
function addKWeightedStepEnergy(samples: Float32Array, sampleRate: number, stepSamples: number, steps: Float64Array): void {
  const [b0, b1, b2, a1, a2] = shelfFilter(sampleRate);
  const [, , , c1, c2] = highpassFilter(sampleRate); // numerator 1, -2, 1: written out below
  const a1a1a2 = a1 * a1 - a2, a1a2 = a1 * a2, c1c1c2 = c1 * c1 - c2, c1c2 = c1 * c2;
  // Inputs, shelf outputs and high-pass outputs one and two samples back.
  let x1 = 0, x2 = 0, y1 = 0, y2 = 0, z1 = 0, z2 = 0;
  for (let s = 0; s < steps.length; s++) {
    const end = (s + 1) * stepSamples;
    let sum = 0;
    let i = s * stepSamples;
    for (; i + 1 < end; i += 2) {
      const xa = samples[i], xb = samples[i + 1];
      const fa = b0 * xa + b1 * x1 + b2 * x2;
      const fb = b0 * xb + b1 * xa + b2 * x1;
      // The oldest terms first, so the newest output's multiply-add ends each chain.
      const ya = fa - a2 * y2 - a1 * y1;
      const yb = fb - a1 * fa + a1a2 * y2 + a1a1a2 * y1;
      const ga = ya - 2 * y1 + y2;
      const gb = yb - 2 * ya + y1;
      const za = ga - c2 * z2 - c1 * z1;
      const zb = gb - c1 * ga + c1c2 * z2 + c1c1c2 * z1;
      x2 = xa; x1 = xb;
      y2 = ya; y1 = yb;
      z2 = za; z1 = zb;
      sum += za * za + zb * zb;
    }
    if (i < end) {
      // The odd sample of an odd-length step (22.05 kHz: 2,205 samples), one at a time.
      const x = samples[i];
      const y = b0 * x + b1 * x1 + b2 * x2 - a2 * y2 - a1 * y1;
      const z = y - 2 * y1 + y2 - c2 * z2 - c1 * z1;
      x2 = x1; x1 = x;
      y2 = y1; y1 = y;
      z2 = z1; z1 = z;
      sum += z * z;
    }
    steps[s] += sum;
  }
}

function lufsOf(meanSquare: number): number {
  return LOUDNESS_OFFSET_DB + 10 * Math.log10(meanSquare);
}

/**
 * Integrated loudness in LUFS of a stereo (or mono) signal; every channel weighs 1.0 (BS.1770's
 * weights for L, R and C: surround channels are not expected here). A signal with no block above
 * the absolute gate (silence, or shorter than 400 ms) returns -Infinity: there is no loudness to
 * report, and the analysis stores it as null.
 */
export function integratedLoudnessLufs(channels: Float32Array[], sampleRate: number): number {
  const stepSamples = Math.round(sampleRate * STEP_SECONDS);
  const length = channels.length ? channels[0].length : 0;
  // Only whole steps: a block starts every 100 ms while 400 ms remain, as in ffmpeg's filter.
  const steps = new Float64Array(Math.floor(length / stepSamples));
  for (const channel of channels) addKWeightedStepEnergy(channel, sampleRate, stepSamples, steps);
  const blockCount = steps.length - STEPS_PER_BLOCK + 1;
  if (blockCount <= 0) return -Infinity;

  const blockMeanSquare = new Float64Array(blockCount);
  const blockSamples = STEPS_PER_BLOCK * stepSamples;
  for (let b = 0; b < blockCount; b++) {
    let sum = 0;
    for (let s = b; s < b + STEPS_PER_BLOCK; s++) sum += steps[s];
    blockMeanSquare[b] = sum / blockSamples;
  }
  const meanAbove = (gateLufs: number) => {
    let sum = 0, count = 0;
    for (const ms of blockMeanSquare) {
      if (lufsOf(ms) > gateLufs) {
        sum += ms;
        count++;
      }
    }
    return count ? sum / count : 0;
  };
  const ungated = meanAbove(ABSOLUTE_GATE_LUFS);
  if (ungated === 0) return -Infinity;
  const relativeGate = lufsOf(ungated) + RELATIVE_GATE_LU;
  return lufsOf(meanAbove(Math.max(ABSOLUTE_GATE_LUFS, relativeGate)));
}
