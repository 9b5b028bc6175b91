// Running sums of a frame envelope: the sum over any span of frames in O(1), for scores that read
// the mean of many long windows (a segment candidate's energy, a bar's level).

const sums = new WeakMap<Float32Array, Float64Array>();

/** Entry f is the sum of values[0..f); made once per array (an analysis's envelopes do not change). */
export function runningSum(values: Float32Array): Float64Array {
  let sum = sums.get(values);
  if (!sum) {
    sum = new Float64Array(values.length + 1);
    for (let f = 0; f < values.length; f++) sum[f + 1] = sum[f] + values[f];
    sums.set(values, sum);
  }
  return sum;
}

/** Entry f is how many of values[0..f) are below `threshold`. */
export function runningCountBelow(values: Float32Array, threshold: number): Int32Array {
  const count = new Int32Array(values.length + 1);
  for (let f = 0; f < values.length; f++) count[f + 1] = count[f] + (values[f] < threshold ? 1 : 0);
  return count;
}
