// The analysis's real FFT: PFFFT compiled to WebAssembly with SIMD (@echogarden/pffft-wasm), about
// 3x fft.js's realTransform at 1024 points, for the spectrogram's every frame. Single precision,
// like the PCM it reads.
import PFFFT from '@echogarden/pffft-wasm/simd';

const PFFFT_REAL = 0;
const PFFFT_FORWARD = 0;
const BYTES_PER_FLOAT = 4;

const wasm = await PFFFT();

export interface RealFft {
  /** Write the frame here (length `size`), then call `transform`. */
  input: Float32Array;
  /**
   * Transforms `input` and returns the spectrum in PFFFT's ordered layout: [0] the DC bin's real
   * part, [1] the Nyquist bin's, then the real and imaginary parts of bins 1 .. size / 2 - 1. The
   * array is reused by the next call.
   */
  transform(): Float32Array;
}

interface Buffers {
  setup: number;
  inputAt: number;
  outputAt: number;
  workAt: number;
}

const buffers = new Map<number, Buffers>();

function buffersOf(size: number): Buffers {
  let kept = buffers.get(size);
  if (!kept) {
    const setup = wasm._pffft_new_setup(size, PFFFT_REAL);
    if (!setup) throw new Error(`PFFFT cannot transform ${size} points`);
    const bytes = size * BYTES_PER_FLOAT;
    kept = { setup, inputAt: wasm._pffft_aligned_malloc(bytes), outputAt: wasm._pffft_aligned_malloc(bytes), workAt: wasm._pffft_aligned_malloc(bytes) };
    buffers.set(size, kept);
  }
  return kept;
}

/**
 * A forward real FFT of `size` points (a power of two, 32 or more: PFFFT's smallest); its buffers are kept for the
 * process. Take it again for each signal: its arrays are views on the module's memory, which
 * another size's first use may grow (detaching older views).
 */
export function realFft(size: number): RealFft {
  const { setup, inputAt, outputAt, workAt } = buffersOf(size);
  const output = new Float32Array(wasm.HEAPF32.buffer, outputAt, size);
  return {
    input: new Float32Array(wasm.HEAPF32.buffer, inputAt, size),
    transform: () => {
      // A view on memory that has since grown reads nothing (length 0): fail loudly, not with NaNs.
      if (output.buffer !== wasm.HEAPF32.buffer) throw new Error('realFft: taken before another size grew the memory; take it again');
      wasm._pffft_transform_ordered(setup, inputAt, outputAt, workAt, PFFFT_FORWARD);
      return output;
    },
  };
}
