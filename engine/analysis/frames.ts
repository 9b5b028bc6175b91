// The analysis's frame grid: window and hop sizes, and a frame's time. Apart from spectrogram.ts
// so that code reading frame times (an edit's plan, in the server's own thread) does not load the
// FFT, a WebAssembly module (~15 ms to instantiate), in a process that never analyses.

export const FFT_SIZE = 1024;
export const HOP_SIZE = 256;

/** Frames from a frame's start to its window's centre: a frame's time is its centre. */
const CENTRE_FRAMES = FFT_SIZE / 2 / HOP_SIZE;

/** Frames the analysis makes of a signal `samples` long at its own (half) rate: whole windows only, at least one. */
export function framesOfSamples(samples: number): number {
  return Math.max(1, Math.floor((samples - FFT_SIZE) / HOP_SIZE) + 1);
}

/** The time (seconds) of frame `frame` at `frameRate` frames per second: its window's centre. */
export function frameSeconds(frame: number, frameRate: number): number {
  return (frame + CENTRE_FRAMES) / frameRate;
}

/** The frame whose window is centred nearest `seconds` (the inverse of frameSeconds). */
export function frameAtSeconds(seconds: number, frameRate: number): number {
  return Math.round(seconds * frameRate - CENTRE_FRAMES);
}
