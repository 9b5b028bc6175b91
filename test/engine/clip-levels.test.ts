// A plan's clip levels (engine/plan/clip-levels.ts) are read from the source's running sums
// without laying the clip out: every sum must equal the one over the laid-out envelope, also where
// rounding overlaps two runs by a frame, leaves a frame between them, or a run passes the source's end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clipLevels, envelopeOf } from '../../engine/plan/clip-levels.ts';
import { frameLevels } from '../../engine/analysis/peak.ts';

/** The analysis's frame rate (44,100 Hz / 256 hop). */
const FRAME_RATE = 172.265625;
/** Relative difference allowed between a running-sum difference and a direct sum. */
const SUM_TOLERANCE = 1e-9;

test('clip levels sum what the laid-out envelope holds, over any frame range', () => {
  const source = Float32Array.from({ length: 4000 }, (_, f) => 0.05 + 0.5 * Math.abs(Math.sin(f * 0.013)) * (f % 7 === 0 ? 2 : 1));
  const layouts = [
    [{ sourceStart: 1.2345, length: 3.3333 }, { sourceStart: 10.0049, length: 4.1117 }, { sourceStart: 2.0001, length: 2.5551 }],
    [{ sourceStart: 0, length: 0.5029 }, { sourceStart: 7.7771, length: 0.5029 }, { sourceStart: 0.0031, length: 5 }],
    [{ sourceStart: 20, length: 6 }], // past the source's end (23.2 s): silent there
  ];
  for (const runs of layouts) {
    const envelope = envelopeOf(source, runs, FRAME_RATE);
    const laidOut = frameLevels(envelope);
    const levels = clipLevels(source, runs, FRAME_RATE);
    assert.equal(levels.frames, envelope.length);
    for (let from = -3; from < envelope.length + 3; from += 17) {
      for (const width of [1, 2, 40, 333, 2000]) {
        const want = laidOut.sumOfSquares(from, from + width), got = levels.sumOfSquares(from, from + width);
        assert.ok(Math.abs(got - want) <= SUM_TOLERANCE * Math.max(1, want), `frames [${from}, ${from + width}): ${got} != ${want}`);
      }
    }
  }
});
