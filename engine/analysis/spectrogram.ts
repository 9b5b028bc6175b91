// Short-time spectra of a mono signal (Hann window, real-fft.ts), reduced to what the analysis
// needs: per-frame RMS, log-compressed band energies, and a pitch-class (chroma) profile.
import { realFft } from './real-fft.ts';
import { FFT_SIZE, HOP_SIZE, framesOfSamples } from './frames.ts';

const BANDS = 48;
const BAND_LOW_HZ = 30;
const BAND_HIGH_HZ = 8000;
const CHROMA_LOW_HZ = 40; // low: bass notes mark bar starts
const CHROMA_HIGH_HZ = 2000;

export interface Spectrogram {
  sampleRate: number;
  /** Frames per second (sampleRate / HOP_SIZE). */
  frameRate: number;
  frames: number;
  /** RMS amplitude per frame (linear, full scale = 1). */
  rms: Float32Array;
  /** log(1 + 1000 * band energy), frames x BANDS, row-major. */
  logBands: Float32Array;
  bands: number;
  /** Pitch-class magnitudes per frame (frames x 12), for harmonic change at beats. */
  chromaFrames: Float32Array;
}

/**
 * The power of bin `b` (0 .. FFT_SIZE / 2) of the Hann-windowed frame, from the transform of the
 * frame unwindowed (real-fft.ts's layout): the periodic Hann window 0.5 - 0.5 cos(2 pi n / N)
 * multiplies the spectrum by the kernel [-1/4, 1/2, -1/4] across neighbouring bins, so only the
 * bins the bands and chroma read are windowed, not the 1024 samples of every frame.
 */
function windowedPower(out: Float32Array, b: number): number {
  if (b < 2 || b > FFT_SIZE / 2 - 2) return edgeWindowedPower(out, b);
  const re = 0.5 * out[2 * b] - 0.25 * (out[2 * b - 2] + out[2 * b + 2]);
  const im = 0.5 * out[2 * b + 1] - 0.25 * (out[2 * b - 1] + out[2 * b + 3]);
  return re * re + im * im;
}

/**
 * windowedPower at the spectrum's edges, where a neighbour is DC or Nyquist (real parts only,
 * kept at [0] and [1]) or lies past them (the spectrum of a real frame mirrors there: bin -1 is
 * bin 1's conjugate, bin N/2 + 1 bin N/2 - 1's).
 */
function edgeWindowedPower(out: Float32Array, b: number): number {
  const half = FFT_SIZE / 2;
  const re = (k: number): number => (k === 0 ? out[0] : k === half ? out[1] : k < 0 ? re(-k) : k > half ? re(FFT_SIZE - k) : out[2 * k]);
  const im = (k: number): number => (k === 0 || k === half ? 0 : k < 0 ? -im(-k) : k > half ? -im(FFT_SIZE - k) : out[2 * k + 1]);
  const windowedRe = 0.5 * re(b) - 0.25 * (re(b - 1) + re(b + 1));
  const windowedIm = 0.5 * im(b) - 0.25 * (im(b - 1) + im(b + 1));
  return windowedRe * windowedRe + windowedIm * windowedIm;
}

/** The sum of squares of `mono` over each hop (HOP_SIZE samples), float64: a frame's RMS adds its window's hops. */
function hopSquares(mono: Float32Array, hops: number): Float64Array {
  const sums = new Float64Array(hops);
  for (let h = 0; h < hops; h++) {
    let sum = 0;
    for (let i = h * HOP_SIZE; i < Math.min(mono.length, (h + 1) * HOP_SIZE); i++) sum += mono[i] * mono[i];
    sums[h] = sum;
  }
  return sums;
}

interface BinRanges {
  /** The first bin of each band, and one past its last: a band is a contiguous range of bins. */
  bandFrom: Int16Array;
  bandTo: Int16Array;
  /** The pitch class of each bin in [pitchFrom, pitchTo). */
  pitchOfBin: Int8Array;
  pitchFrom: number;
  pitchTo: number;
}

/** Which bins each band and the chroma sum at `sampleRate` (bands spaced evenly in log frequency). */
function binRanges(sampleRate: number): BinRanges {
  const bins = FFT_SIZE / 2 + 1;
  const binHz = sampleRate / FFT_SIZE;
  const ranges: BinRanges = { bandFrom: new Int16Array(BANDS).fill(bins), bandTo: new Int16Array(BANDS), pitchOfBin: new Int8Array(bins).fill(-1), pitchFrom: bins, pitchTo: 0 };
  const highHz = Math.min(BAND_HIGH_HZ, sampleRate / 2);
  const logLow = Math.log(BAND_LOW_HZ);
  const logHigh = Math.log(highHz);
  for (let b = 0; b < bins; b++) {
    const hz = b * binHz;
    if (hz >= BAND_LOW_HZ && hz < highHz) {
      const band = Math.min(BANDS - 1, Math.floor(((Math.log(hz) - logLow) / (logHigh - logLow)) * BANDS));
      ranges.bandFrom[band] = Math.min(ranges.bandFrom[band], b);
      ranges.bandTo[band] = b + 1;
    }
    if (hz >= CHROMA_LOW_HZ && hz <= CHROMA_HIGH_HZ) {
      ranges.pitchOfBin[b] = (((Math.round(12 * Math.log2(hz / 440)) + 9) % 12) + 12) % 12;
      ranges.pitchFrom = Math.min(ranges.pitchFrom, b);
      ranges.pitchTo = b + 1;
    }
  }
  return ranges;
}

/** The short-time spectra of `mono`. */
export function spectrogram(mono: Float32Array, sampleRate: number): Spectrogram {
  const fft = realFft(FFT_SIZE);
  const { bandFrom, bandTo, pitchOfBin, pitchFrom, pitchTo } = binRanges(sampleRate);
  const frames = framesOfSamples(mono.length);
  const squares = hopSquares(mono, frames - 1 + FFT_SIZE / HOP_SIZE);
  const rms = new Float32Array(frames);
  const logBands = new Float32Array(frames * BANDS);
  const chromaFrames = new Float32Array(frames * 12);
  for (let f = 0; f < frames; f++) {
    const start = f * HOP_SIZE;
    let sumSquares = 0;
    for (let h = f; h < f + FFT_SIZE / HOP_SIZE; h++) sumSquares += squares[h];
    rms[f] = Math.sqrt(sumSquares / FFT_SIZE);
    const frame = mono.subarray(start, start + FFT_SIZE);
    // The input buffer is the process's one (real-fft.ts): a short signal's tail must not be the last frame's.
    if (frame.length < FFT_SIZE) fft.input.fill(0);
    fft.input.set(frame);
    const out = fft.transform();
    for (let k = 0; k < BANDS; k++) {
      let energy = 0;
      for (let b = bandFrom[k]; b < bandTo[k]; b++) energy += windowedPower(out, b);
      logBands[f * BANDS + k] = Math.log1p((1000 * energy) / FFT_SIZE);
    }
    for (let b = pitchFrom; b < pitchTo; b++) chromaFrames[f * 12 + pitchOfBin[b]] += Math.sqrt(windowedPower(out, b));
  }
  return { sampleRate, frameRate: sampleRate / HOP_SIZE, frames, rms, logBands, bands: BANDS, chromaFrames };
}
