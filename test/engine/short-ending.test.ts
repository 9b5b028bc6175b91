// An edit whose hit point leaves less than a bar and a half-part after the peak (D - H of a beat
// and a bit, a slow song, its peak on a bar's last beat): the clip still ends on a beat, by
// leaving the climax at the bar line a beat after the peak for a last part of under half a second
// (engine/plan/after-peak.ts), not with a cut mid-beat; and when even half a part does not fit
// after that beat, with a last part as short as a tenth of a second before a bar line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { barAt, barGrid } from '../../engine/plan/bar-grid.ts';
import { endingKinds } from '../../engine/plan/after-peak.ts';
import { MIN_PART_SECONDS } from '../../engine/plan/edit-choice.ts';
import { drumPattern, stereo } from '../support/synth.ts';

/** The slow song's tempo: a beat of 0.63 s, so a beat and a half-part do not fit in D - H. */
const BPM = 95;
/** What D - H leaves after the beat to the bar line: less than a whole part, more than half of one. */
const LAST_PART_SECONDS = 0.44;
/** The tolerance for a part boundary on a bar line. */
const ON_LINE_SECONDS = 0.02;

test('D - H a beat and 0.44 s, the peak on a bar\'s last beat: the clip ends on a bar line or the track\'s end, not mid-beat', () => {
  const analysis = analysePcm(stereo(drumPattern(BPM, 60)));
  const drums = barGrid(analysis);
  assert.ok(drums.bars >= 16, `${drums.bars} bars`);
  // The peak on the beat before the tenth bar line: the one bar line within D - H is a beat away.
  const line = drums.lines[10];
  const beats = analysis.beatTimesSeconds;
  const peakSeconds = Math.max(...Array.from(beats).filter((b) => b < line - ON_LINE_SECONDS));
  const beatToLine = line - peakSeconds;
  assert.ok(Math.abs(beatToLine - 60 / BPM) < 0.05, `the peak ${peakSeconds.toFixed(3)} is a beat before the bar line ${line.toFixed(3)}`);
  const rest = beatToLine + LAST_PART_SECONDS;
  assert.ok(LAST_PART_SECONDS < MIN_PART_SECONDS && rest < beatToLine + MIN_PART_SECONDS);
  const grid = barGrid({ ...analysis, peakSeconds });
  const first = endingKinds(grid, rest)(0);
  assert.ok(first && first.length > 0);
  assert.ok(first.every((choice) => choice.ending !== 'cut'), `endings ${[...new Set(first.map((choice) => choice.ending))].join(', ')}`);
  const best = first.reduce((a, b) => (b.cost < a.cost ? b : a));
  assert.ok(Math.abs(best.peakRunEnd - line) < ON_LINE_SECONDS, `the climax is left at ${best.peakRunEnd.toFixed(3)}, not the bar line ${line.toFixed(3)}`);
  const [last] = best.runs;
  assert.ok(Math.abs(last.length - LAST_PART_SECONDS) < 1e-6, `last part ${last.length}`);
  const end = last.sourceStart + last.length;
  const endLine = grid.lines[barAt(grid, end + ON_LINE_SECONDS)];
  assert.ok(best.ending === 'track_end' || Math.abs(endLine - end) < ON_LINE_SECONDS, `the last part ends at ${end.toFixed(3)}, off the bar lines`);
});

/** A slower song still: a beat of 0.91 s, after which D - H leaves only a tenth of a second or so. */
const SLOW_BPM = 66;
/** What D - H leaves after the beat to the bar line: less than half a part (0.25 s). */
const SHORTEST_REST_SECONDS = 0.12;

test('D - H a beat and 0.12 s on a 66 BPM song: the clip still ends on a bar line or the track\'s end, its last part 0.12 s', () => {
  const analysis = analysePcm(stereo(drumPattern(SLOW_BPM, 60)));
  const drums = barGrid(analysis);
  const line = drums.lines[8];
  const peakSeconds = Math.max(...Array.from(analysis.beatTimesSeconds).filter((b) => b < line - ON_LINE_SECONDS));
  const beatToLine = line - peakSeconds;
  assert.ok(Math.abs(beatToLine - 60 / SLOW_BPM) < 0.05, `the peak ${peakSeconds.toFixed(3)} is a beat before the bar line ${line.toFixed(3)}`);
  const grid = barGrid({ ...analysis, peakSeconds });
  const first = endingKinds(grid, beatToLine + SHORTEST_REST_SECONDS)(0);
  assert.ok(first && first.length > 0);
  assert.ok(first.every((choice) => choice.ending !== 'cut'), `endings ${[...new Set(first.map((choice) => choice.ending))].join(', ')}`);
  const best = first.reduce((a, b) => (b.cost < a.cost ? b : a));
  const last = best.runs[best.runs.length - 1];
  assert.ok(Math.abs(last.length - SHORTEST_REST_SECONDS) < 1e-6, `last part ${last.length}`);
  const end = last.sourceStart + last.length;
  const endLine = grid.lines[barAt(grid, end + ON_LINE_SECONDS)];
  assert.ok(best.ending === 'track_end' || Math.abs(endLine - end) < ON_LINE_SECONDS, `the last part ends at ${end.toFixed(3)}, off the bar lines`);
});
