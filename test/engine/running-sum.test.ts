// Running sums (engine/analysis/running-sum.ts), which segment selection and the bar grid read
// window means from: every span's sum and count must equal the one taken frame by frame.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runningCountBelow, runningSum } from '../../engine/analysis/running-sum.ts';

/** Relative difference allowed between a running-sum difference and a direct sum. */
const SUM_TOLERANCE = 1e-9;

test('running sums and counts below a threshold equal the direct ones over any span', () => {
  const values = Float32Array.from({ length: 3000 }, (_, f) => 0.01 + 0.4 * Math.abs(Math.sin(f * 0.021)) * (f % 11 === 0 ? 3 : 1));
  const threshold = 0.05;
  const sum = runningSum(values);
  const count = runningCountBelow(values, threshold);
  assert.equal(sum.length, values.length + 1);
  assert.equal(runningSum(values), sum, 'made once per array');
  for (let from = 0; from <= values.length; from += 37) {
    for (const width of [0, 1, 5, 400, 2999]) {
      const to = Math.min(values.length, from + width);
      let want = 0, below = 0;
      for (let f = from; f < to; f++) {
        want += values[f];
        if (values[f] < threshold) below++;
      }
      const got = sum[to] - sum[from];
      assert.ok(Math.abs(got - want) <= SUM_TOLERANCE * Math.max(1, want), `frames [${from}, ${to}): ${got} != ${want}`);
      assert.equal(count[to] - count[from], below, `frames [${from}, ${to}): silent count`);
    }
  }
});
