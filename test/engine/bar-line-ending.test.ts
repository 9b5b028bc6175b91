// What a clip's ending on a bar line costs (engine/plan/edges.ts endChoice): a bar line with
// little heard on it costs more, so the plan ends on one whose onset says the grid is on the music.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { frameAtSeconds } from '../../engine/analysis/frames.ts';
import { barGrid } from '../../engine/plan/bar-grid.ts';
import { endChoice } from '../../engine/plan/edges.ts';
import { drumPattern, stereo } from '../support/synth.ts';

/** Frames either side of a bar line whose onset is scaled: wider than the support's own reach (2 frames). */
const SILENCED_FRAMES = 4;

test('a bar line with no onset under it costs more as an ending than with a fifth of its onset, and that more than with all of it; a line with its onset keeps its cost', () => {
  const analysis = analysePcm(stereo(drumPattern(120, 40)));
  const grid = barGrid(analysis);
  assert.ok(grid.bars >= 12, `${grid.bars} bars`);
  const line = grid.lines[8];
  const withOnsetScaled = (scale: number) => {
    const onset = Float32Array.from(analysis.onset);
    const frame = frameAtSeconds(line, analysis.frameRate);
    for (let f = frame - SILENCED_FRAMES; f <= frame + SILENCED_FRAMES; f++) onset[f] *= scale;
    return barGrid({ ...analysis, onset });
  };
  const heard = endChoice(grid, line);
  assert.equal(heard.ending, 'bar_line');
  const silent = endChoice(withOnsetScaled(0), line);
  const faint = endChoice(withOnsetScaled(0.2), line);
  assert.equal(silent.ending, 'bar_line');
  assert.ok(silent.cost > faint.cost && faint.cost > heard.cost, `costs: no onset ${silent.cost}, a fifth of it ${faint.cost}, all of it ${heard.cost}`);
  // Another line keeps its cost: the change is the line's own onset, not the track's.
  assert.equal(endChoice(withOnsetScaled(0), grid.lines[4]).cost, endChoice(grid, grid.lines[4]).cost);
});
