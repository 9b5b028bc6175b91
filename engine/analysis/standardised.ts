// Values on a common scale, so that evidence of different kinds can be added and compared.

/** Values less their mean, in units of their standard deviation (all 0 when they do not vary). */
export function standardised(values: Float64Array): Float64Array {
  const n = values.length || 1;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / n);
  return values.map((v) => (sd > 0 ? (v - mean) / sd : 0));
}
