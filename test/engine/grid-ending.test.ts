// Edits that end on the beat where the tracker's bars slid half a beat (engine/plan/grid-ending.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { endsOffGrid, offTheGrid, oneGridBeats, withGridBars } from '../../engine/plan/grid-ending.ts';
import { barGrid } from '../../engine/plan/bar-grid.ts';
import { endChoice } from '../../engine/plan/edges.ts';
import { planClip } from '../../engine/plan/plan-clip.ts';
import { PLAN_SAMPLE_RATE } from '../../engine/plan/plan.ts';
import { beatTimes, offBeatPassage, stereo } from '../support/synth.ts';
import { offBeatSeconds } from '../support/edit-ending.ts';
import { chartBeatsOnAudio, chartSongs, decodeChartSong } from '../support/chart-songs.ts';
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';
import { indexFrames } from '../../engine/mp3/frame-index.ts';
import { decodeAll } from '../../engine/mp3/decode.ts';
import { seededRandom } from '../../catalog/demo/random.ts';
import type { Analysis } from '../../engine/analysis/analyse.ts';

const BPM = 120;
const SECONDS = 150;
/** The passage whose off-beats are louder: the tracker's beats, and bars, slide into them. */
const PASSAGE: [number, number] = [60, 100];
const ON_BEAT_SECONDS = 0.03;

test('bars on the grid: where the tracker\'s bars slid half a beat, an ending on one of them is off the grid; on the grid\'s bars it is not', () => {
  const analysis = analysePcm(stereo(offBeatPassage(BPM, SECONDS, PASSAGE)));
  const designed = beatTimes(BPM, SECONDS);
  const variant = withGridBars(analysis);
  assert.ok(variant, 'a piece with a slide has bars on the grid');
  assert.equal(withGridBars(analysis), variant, 'made once per analysis');
  assert.equal(variant.beatTimesSeconds, analysis.beatTimesSeconds, "the variant keeps the tracker's beats");
  assert.equal(oneGridBeats(analysis), analysis.gridBeatTimesSeconds);
  const inPassage = (t: number) => t > PASSAGE[0] + 3 && t < PASSAGE[1];
  const slidLines = Array.from(analysis.barTimesSeconds).filter(inPassage);
  const gridLines = Array.from(variant.barTimesSeconds).filter(inPassage);
  assert.ok(slidLines.length >= 5 && gridLines.length >= 5);
  const endingAt = (t: number) => [{ sourceStart: t - 10, length: 10 }];
  for (const line of slidLines) {
    assert.ok(offBeatSeconds(line, designed) > 0.1, `tracked bar line ${line} on an off-beat`);
    assert.equal(endsOffGrid(analysis, endingAt(line), 'bar_line'), true, `an ending at ${line}`);
    assert.equal(endsOffGrid(analysis, endingAt(line), 'track_end'), false, 'only bar-line endings are weighed');
  }
  for (const line of gridLines) {
    assert.ok(offBeatSeconds(line, designed) <= ON_BEAT_SECONDS, `grid bar line ${line} on a beat`);
    assert.equal(endsOffGrid(analysis, endingAt(line), 'bar_line'), false, `an ending at ${line}`);
  }
});

/** What a bar-line ending off the grid costs more than the same line would were the tracker's beats on one grid (edges.ts OFF_GRID_END_COST). */
const OFF_GRID_END_COST = 1;

test("an ending on a tracked bar line off the grid costs more, one on the grid's bars does not", () => {
  const analysis = analysePcm(stereo(offBeatPassage(BPM, SECONDS, PASSAGE)));
  const onTracker = barGrid(analysis), onOneGrid = barGrid(trackerBarsOnly(analysis));
  const variant = barGrid(withGridBars(analysis)!);
  const inPassage = (t: number) => t > PASSAGE[0] + 3 && t < PASSAGE[1];
  const slidLines = Array.from(analysis.barTimesSeconds).filter(inPassage);
  assert.ok(slidLines.length >= 5);
  for (const line of slidLines) {
    assert.equal(offTheGrid(analysis, line), true, `tracked bar line ${line}`);
    const extra = endChoice(onTracker, line).cost - endChoice(onOneGrid, line).cost;
    assert.ok(Math.abs(extra - OFF_GRID_END_COST) < 1e-9, `an ending at ${line} costs ${extra} more`);
  }
  for (const line of Array.from(analysis.gridBarTimesSeconds).filter(inPassage)) {
    assert.equal(offTheGrid(analysis, line), false, `grid bar line ${line}`);
    assert.equal(endChoice(variant, line).ending, 'bar_line');
  }
  const before = Array.from(analysis.barTimesSeconds).filter((t) => t > 10 && t < PASSAGE[0] - 3);
  assert.ok(before.length >= 5 && before.every((line) => !offTheGrid(analysis, line)), 'lines where the two agree are on the grid');
});

test('a piece tracked on one grid has no variant, and no ending of it is off the grid', () => {
  const analysis = analysePcm(stereo(offBeatPassage(BPM, 60, [0, 0])));
  assert.equal(analysis.gridBeatTimesSeconds.length, 0);
  assert.equal(withGridBars(analysis), undefined);
  assert.equal(oneGridBeats(analysis), analysis.beatTimesSeconds);
  const line = analysis.barTimesSeconds[5];
  assert.equal(endsOffGrid(analysis, [{ sourceStart: 0, length: line }], 'bar_line'), false);
});

/** The analysis as if the tracker's beats were on one grid: edits planned on the tracker's bars alone. */
function trackerBarsOnly(analysis: Analysis): Analysis {
  const none = new Float32Array(0);
  return { ...analysis, gridBeatTimesSeconds: none, gridBarTimesSeconds: none, gridBarFeatures: none, gridSectionTimesSeconds: none };
}

const EDITS_PER_SONG = 40;
const DURATIONS = [20, 30, 45, 60];
const songs = chartSongs();
test('rock and metal songs: edits that end on a bar line end on a chart beat more often than on the tracker\'s bars alone, and none less often', { skip: songs.length === 0 && 'needs fretsonfire-songs-muldjord or fretsonfire-songs-sectoid' }, async (t) => {
  let changed = 0, onBeatBefore = 0, onBeatNow = 0;
  for (const dir of songs) {
    const pcm = decodeChartSong(dir)!;
    const mp3 = await encodeGaplessMp3(pcm.channels[0], pcm.channels[1]);
    const analysis = analysePcm(await decodeAll(mp3, indexFrames(mp3)));
    const chart = chartBeatsOnAudio(dir, analysis);
    const random = seededRandom(777).next;
    const endsOnBeat = (plan: ReturnType<typeof planClip>) => {
      if (plan.ending !== 'bar_line') return plan.ending === 'track_end';
      const last = plan.parts[plan.parts.length - 1];
      return offBeatSeconds((last.sourceStart + last.length) / PLAN_SAMPLE_RATE, chart) <= ON_BEAT_SECONDS;
    };
    for (let k = 0; k < EDITS_PER_SONG; k++) {
      const duration = DURATIONS[k % DURATIONS.length];
      const request = { mode: 'edit' as const, durationSeconds: duration, hitPointSeconds: Math.round((1 + random() * (duration - 2)) * 100) / 100 };
      const before = planClip(trackerBarsOnly(analysis), request);
      const now = planClip(analysis, request);
      if (JSON.stringify(before.parts) === JSON.stringify(now.parts)) continue;
      changed++;
      if (endsOnBeat(before)) onBeatBefore++;
      if (endsOnBeat(now)) onBeatNow++;
      assert.ok(endsOnBeat(now) || !endsOnBeat(before), `${dir} ${JSON.stringify(request)}: the grid's bars ended it off a chart beat`);
    }
  }
  t.diagnostic(`${changed} plans changed; on a chart beat or the track's end ${onBeatBefore} -> ${onBeatNow}`);
  assert.ok(onBeatNow > onBeatBefore, `on a chart beat ${onBeatBefore} -> ${onBeatNow}`);
});
