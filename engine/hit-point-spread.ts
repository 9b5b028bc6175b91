// Hit points spread over a clip without repeating: the i-th at 1 + frac(i * golden ratio) of
// [1, D - 1], to the millisecond. Multiples of the golden ratio's fraction never repeat modulo 1
// and fill the range evenly, so warming plans and benchmarks each meet a new (track, H).
const GOLDEN_FRACTION = 0.6180339887498949;

/** The i-th hit point (seconds, 3 decimals) in [1, D - 1] of a clip D seconds long. */
export function spreadHitPoint(i: number, durationSeconds: number): number {
  return Math.round((1 + ((i * GOLDEN_FRACTION) % 1) * Math.max(0, durationSeconds - 2)) * 1000) / 1000;
}
