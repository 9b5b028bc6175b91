// One beat grid through a piece (engine/analysis/beat-phase.ts): a passage whose off-beats are
// louder than its beats leads the dynamic programme half a beat off; the piece's beats stay on the
// grid the whole piece holds. On synthetic onset envelopes, then on the rock and metal songs whose
// charts give their beats (skipped when fretsonfire-songs-* are not installed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { beatFrames } from '../../engine/analysis/beats.ts';
import { halfBeatSlides } from '../../engine/analysis/beat-phase.ts';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';
import { indexFrames } from '../../engine/mp3/frame-index.ts';
import { decodeAll } from '../../engine/mp3/decode.ts';
import { chartBeatsOnAudio, chartSongs, decodeChartSong } from '../support/chart-songs.ts';
import { offBeatSeconds } from '../support/edit-ending.ts';

// ~129 BPM at the analysis's ~86 frames/s, 320 beats (~149 s), beats from frame 10.
const PERIOD = 40;
const BEATS = 320;
const FIRST = 10;
/** Beats [from, to) whose off-beats are louder than they are. */
const LOUD_OFF_BEATS = [120, 200];

/** Beats at 1 and off-beats at 0.3, but in LOUD_OFF_BEATS beats at 0.4 and off-beats at 1. */
function envelope(): Float32Array {
  const onset = new Float32Array(FIRST + BEATS * PERIOD);
  for (let k = 0; k < BEATS; k++) {
    const loudOff = k >= LOUD_OFF_BEATS[0] && k < LOUD_OFF_BEATS[1];
    onset[FIRST + k * PERIOD] = loudOff ? 0.4 : 1;
    onset[FIRST + k * PERIOD + PERIOD / 2] = loudOff ? 1 : 0.3;
  }
  return onset;
}

/** Frames from `frame` to the nearest beat of the grid FIRST + k * PERIOD. */
const offGrid = (frame: number) => Math.abs(((frame - FIRST + PERIOD / 2) % PERIOD) - PERIOD / 2);

test('a passage with louder off-beats: tracked alone it follows them; in the whole piece every beat stays on the grid', () => {
  const onset = envelope();
  // The passage alone (80 beats, an excerpt): the dynamic programme takes its louder off-beats.
  const passage = onset.subarray(FIRST + LOUD_OFF_BEATS[0] * PERIOD, FIRST + LOUD_OFF_BEATS[1] * PERIOD);
  const alone = Array.from(beatFrames(passage, PERIOD), (f) => f + FIRST + LOUD_OFF_BEATS[0] * PERIOD);
  const onOffBeats = alone.filter((f) => offGrid(f) >= PERIOD / 2 - 1).length;
  assert.ok(onOffBeats >= 0.9 * alone.length, `the passage alone: ${onOffBeats} of ${alone.length} beats on its off-beats`);
  // The whole piece: one grid, the passage's beats too.
  const beats = beatFrames(onset, PERIOD);
  assert.ok(Math.abs(beats.length - BEATS) <= 1, `${beats.length} beats for ${BEATS}`);
  const off = Array.from(beats).filter((f) => offGrid(f) > 1);
  assert.deepEqual(off, [], 'beats more than a frame off the grid');
});

test('a half-beat slide is found where the gaps run long for a few beats; drift, jitter and a quarter-beat slide are not slides', () => {
  const grid = (gaps: number[]) => {
    const beats = [FIRST];
    for (const gap of gaps) beats.push(beats[beats.length - 1] + gap);
    return Int32Array.from(beats);
  };
  const steady = Array.from({ length: 100 }, () => PERIOD);
  // Ten gaps of 42 frames: half a period over ten beats, as the chart songs' slides went.
  const slid = grid([...steady, ...Array.from({ length: 10 }, () => PERIOD + 2), ...steady]);
  assert.deepEqual(halfBeatSlides(slid, PERIOD), [[101, 111]]);
  // The track's tempo a hair off the period (every fifth gap a frame long), and a frame of jitter.
  const drifting = grid(Array.from({ length: 300 }, (_, i) => PERIOD + (i % 5 === 0 ? 1 : 0) + (i % 7 === 3 ? 1 : i % 7 === 4 ? -1 : 0)));
  assert.deepEqual(halfBeatSlides(drifting, PERIOD), []);
  // A quarter of a period over five beats: a push, not the other phase.
  const pushed = grid([...steady, ...Array.from({ length: 5 }, () => PERIOD + 2), ...steady]);
  assert.deepEqual(halfBeatSlides(pushed, PERIOD), []);
});

/** Songs whose charts give every beat: at least this share of our beats within 30 ms of a chart beat, on average. */
const MIN_MEAN_ON_CHART = 0.93;
/** And on each song. */
const MIN_ON_CHART = 0.75;
const ON_CHART_SECONDS = 0.03;

const songs = chartSongs();
test('rock and metal songs: our beats on their charts\' beats (half-beat slides moved back onto the grid)', { skip: songs.length === 0 && 'needs fretsonfire-songs-muldjord or fretsonfire-songs-sectoid' }, async (t) => {
  const shares: number[] = [];
  for (const dir of songs) {
    const pcm = decodeChartSong(dir);
    assert.ok(pcm, `${dir}: ffmpeg could not decode it`);
    const mp3 = await encodeGaplessMp3(pcm.channels[0], pcm.channels[1]);
    const analysis = analysePcm(await decodeAll(mp3, indexFrames(mp3)));
    const chart = chartBeatsOnAudio(dir, analysis);
    const ours = Array.from(analysis.beatTimesSeconds).filter((time) => time <= chart[chart.length - 1] + ON_CHART_SECONDS);
    const share = ours.filter((time) => offBeatSeconds(time, chart) <= ON_CHART_SECONDS).length / ours.length;
    t.diagnostic(`${dir}: ${(share * 100).toFixed(1)}% of ${ours.length} beats on the chart`);
    assert.ok(share >= MIN_ON_CHART, `${dir}: ${(share * 100).toFixed(1)}% of our beats on the chart`);
    shares.push(share);
  }
  const mean = shares.reduce((sum, share) => sum + share, 0) / shares.length;
  assert.ok(mean >= MIN_MEAN_ON_CHART, `on average ${(mean * 100).toFixed(1)}% of our beats on the charts`);
});
