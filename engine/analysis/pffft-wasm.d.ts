// The parts of @echogarden/pffft-wasm's Emscripten module that real-fft.ts uses (it ships no types).
declare module '@echogarden/pffft-wasm/simd' {
  interface PffftModule {
    HEAPF32: Float32Array;
    _pffft_new_setup(size: number, transform: number): number;
    _pffft_aligned_malloc(bytes: number): number;
    _pffft_transform_ordered(setup: number, input: number, output: number, work: number, direction: number): void;
  }
  export default function PFFFT(): Promise<PffftModule>;
}
