// The analysis's frame grid: window and hop sizes, a frame's time, and the phases of the hop its
// onsets are also kept at. Apart from spectrogram.ts so that code reading frame times (an edit's
// plan, in the server's own thread) does not load the FFT, a WebAssembly module (~15 ms to
// instantiate), in a process that never analyses.

export const FFT_SIZE = 1024;
export const HOP_SIZE = 256;

/** Frames from a frame's start to its window's centre: a frame's time is its centre. */
const CENTRE_FRAMES = FFT_SIZE / 2 / HOP_SIZE;

/** Frames the analysis makes of a signal `samples` long at its own (half) rate: whole windows only, at least one. */
export function framesOfSamples(samples: number): number {
  return Math.max(1, Math.floor((samples - FFT_SIZE) / HOP_SIZE) + 1);
}

/** Slack for a length in seconds worked out by adding parts: their sum may fall a hair short of its whole samples. */
const SAMPLE_SLACK = 1e-6;

/**
 * Frames the analysis makes of `seconds` of audio at `frameRate`: what a clip that long has (its
 * last frame's window ends within the clip). A clip laid out frame by frame from its source would
 * otherwise hold FFT_SIZE / HOP_SIZE frames more at its end, reading the source past the clip's end.
 */
export function framesOfSeconds(seconds: number, frameRate: number): number {
  return framesOfSamples(Math.floor(seconds * frameRate * HOP_SIZE + SAMPLE_SLACK));
}

/** The time (seconds) of frame `frame` at `frameRate` frames per second: its window's centre. */
export function frameSeconds(frame: number, frameRate: number): number {
  return (frame + CENTRE_FRAMES) / frameRate;
}

/** The frame whose window is centred nearest `seconds` (the inverse of frameSeconds). */
export function frameAtSeconds(seconds: number, frameRate: number): number {
  return Math.round(seconds * frameRate - CENTRE_FRAMES);
}

/** The analysis frames' hop in full-rate samples is split into this many phases (analyse.ts fluxPhases). */
export const ONSET_PHASES = 4;
/** Full-rate samples between onset phases: the hop (HOP_SIZE at half rate) over ONSET_PHASES. */
export const ONSET_PHASE_SAMPLES = (2 * HOP_SIZE) / ONSET_PHASES;
