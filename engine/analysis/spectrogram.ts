// Short-time spectra of a mono signal (fft.js, Hann window), reduced to what the analysis needs:
// per-frame RMS, log-compressed band energies, and a pitch-class (chroma) profile.
import FFT from 'fft.js';

export const FFT_SIZE = 1024;
export const HOP_SIZE = 256;
const BANDS = 48;
const BAND_LOW_HZ = 30;
const BAND_HIGH_HZ = 8000;
const CHROMA_LOW_HZ = 40; // low: bass notes mark bar starts
const CHROMA_HIGH_HZ = 2000;

/** Frames from a frame's start to its window's centre: a frame's time is its centre. */
const CENTRE_FRAMES = FFT_SIZE / 2 / HOP_SIZE;

/** The time (seconds) of frame `frame` at `frameRate` frames per second: its window's centre. */
export function frameSeconds(frame: number, frameRate: number): number {
  return (frame + CENTRE_FRAMES) / frameRate;
}

/** The frame whose window is centred nearest `seconds` (the inverse of frameSeconds). */
export function frameAtSeconds(seconds: number, frameRate: number): number {
  return Math.round(seconds * frameRate - CENTRE_FRAMES);
}

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

function hann(size: number): Float32Array {
  const w = new Float32Array(size);
  for (let i = 0; i < size; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / size);
  return w;
}

/** The power of bin `b` of a transform's output (interleaved real and imaginary parts). */
function power(out: number[], b: number): number {
  const re = out[2 * b];
  const im = out[2 * b + 1];
  return re * re + im * im;
}

/**
 * The short-time spectra of `mono`. Without `chroma`, the chroma frames are left empty (the
 * onsets and RMS at other phases, analyse.ts, need only band energies and RMS).
 */
export function spectrogram(mono: Float32Array, sampleRate: number, chroma = true): Spectrogram {
  const fft = new FFT(FFT_SIZE);
  const window = hann(FFT_SIZE);
  const input = new Array<number>(FFT_SIZE).fill(0);
  const out = fft.createComplexArray() as number[];
  const bins = FFT_SIZE / 2 + 1;
  const binHz = sampleRate / FFT_SIZE;

  const bandOfBin = new Int16Array(bins).fill(-1);
  const pitchOfBin = new Int8Array(bins).fill(-1);
  const logLow = Math.log(BAND_LOW_HZ);
  const logHigh = Math.log(Math.min(BAND_HIGH_HZ, sampleRate / 2));
  for (let b = 0; b < bins; b++) {
    const hz = b * binHz;
    if (hz >= BAND_LOW_HZ && hz < Math.min(BAND_HIGH_HZ, sampleRate / 2)) {
      bandOfBin[b] = Math.min(BANDS - 1, Math.floor(((Math.log(hz) - logLow) / (logHigh - logLow)) * BANDS));
    }
    if (hz >= CHROMA_LOW_HZ && hz <= CHROMA_HIGH_HZ) pitchOfBin[b] = (((Math.round(12 * Math.log2(hz / 440)) + 9) % 12) + 12) % 12;
  }

  const frames = Math.max(1, Math.floor((mono.length - FFT_SIZE) / HOP_SIZE) + 1);
  const rms = new Float32Array(frames);
  const logBands = new Float32Array(frames * BANDS);
  const chromaFrames = new Float32Array(chroma ? frames * 12 : 0);
  const bandEnergy = new Float64Array(BANDS);
  for (let f = 0; f < frames; f++) {
    const start = f * HOP_SIZE;
    let sumSquares = 0;
    for (let i = 0; i < FFT_SIZE; i++) {
      const x = mono[start + i] ?? 0;
      sumSquares += x * x;
      input[i] = x * window[i];
    }
    rms[f] = Math.sqrt(sumSquares / FFT_SIZE);
    fft.realTransform(out, input);
    bandEnergy.fill(0);
    for (let b = 0; b < bins; b++) {
      const band = bandOfBin[b];
      if (band >= 0) bandEnergy[band] += power(out, b);
    }
    for (let k = 0; k < BANDS; k++) logBands[f * BANDS + k] = Math.log1p((1000 * bandEnergy[k]) / FFT_SIZE);
    if (!chroma) continue;
    for (let b = 0; b < bins; b++) {
      const pitch = pitchOfBin[b];
      if (pitch >= 0) chromaFrames[f * 12 + pitch] += Math.sqrt(power(out, b));
    }
  }
  return { sampleRate, frameRate: sampleRate / HOP_SIZE, frames, rms, logBands, bands: BANDS, chromaFrames };
}
