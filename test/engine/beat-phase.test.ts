// One beat grid through a piece (engine/analysis/beat-phase.ts): a passage whose off-beats are
// louder than its beats leads the dynamic programme half a beat off; the piece's beats stay on the
// grid the whole piece holds. On synthetic onset envelopes, then on the rock and metal songs whose
// charts give their beats (skipped when fretsonfire-songs-* are not installed).
import { test, after } from 'node:test';
import { skipUnless } from '../support/requirements.ts';
import assert from 'node:assert/strict';
import { beatFrames } from '../../engine/analysis/beats.ts';
import { halfBeatSlides, onOneGrid } from '../../engine/analysis/beat-phase.ts';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { chartBeatsOnAudio, chartSongs } from '../support/chart-songs.ts';
import { chartSongAnalysisThroughMp3, closeAnalysisThreads } from '../support/analysis-threads.ts';
import { offBeatSeconds } from '../support/edit-ending.ts';
import { planGrid } from '../../engine/plan/grid.ts';
import { beatTimes, offBeatPassage, stereo } from '../support/synth.ts';

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

test('a passage with louder off-beats: tracked it follows them; on one grid every beat of the piece is on the grid', () => {
  const onset = envelope();
  // The passage alone (80 beats, an excerpt): the dynamic programme takes its louder off-beats.
  const passage = onset.subarray(FIRST + LOUD_OFF_BEATS[0] * PERIOD, FIRST + LOUD_OFF_BEATS[1] * PERIOD);
  const alone = Array.from(beatFrames(passage, PERIOD), (f) => f + FIRST + LOUD_OFF_BEATS[0] * PERIOD);
  const onOffBeats = alone.filter((f) => offGrid(f) >= PERIOD / 2 - 1).length;
  assert.ok(onOffBeats >= 0.9 * alone.length, `the passage alone: ${onOffBeats} of ${alone.length} beats on its off-beats`);
  // The whole piece, tracked, follows them too; on one grid the passage's beats are on the grid.
  const tracked = beatFrames(onset, PERIOD);
  assert.ok(Array.from(tracked).filter((f) => offGrid(f) > 1).length >= 40, 'the whole piece tracked slides into the passage\'s off-beats');
  const beats = onOneGrid(tracked, onset, PERIOD);
  assert.ok(Math.abs(beats.length - BEATS) <= 1, `${beats.length} beats for ${BEATS}`);
  const off = Array.from(beats).filter((f) => offGrid(f) > 1);
  assert.deepEqual(off, [], 'beats more than a frame off the grid');
});

test('off-beats louder than the beats through most of the piece, chords changing on the beat: on one grid the beats stay on the chords\' beat, not the "and"', () => {
  // A groove pushing the "and" (guitars and bass on the off-beat) for all but its first and last
  // 40 beats: the onsets alone would put the whole piece on the off-beats.
  const onset = new Float32Array(FIRST + BEATS * PERIOD);
  for (let k = 0; k < BEATS; k++) {
    const pushed = k >= 40 && k < BEATS - 40;
    onset[FIRST + k * PERIOD] = pushed ? 0.4 : 1;
    onset[FIRST + k * PERIOD + PERIOD / 2] = pushed ? 1 : 0.3;
  }
  // The chords change on every other beat of the grid (the bar's 1 and 3), never on the "and".
  const changeAt = (frame: number) => (offGrid(frame) <= 1 && Math.round((frame - FIRST) / PERIOD) % 2 === 0 ? 1 : 0.1);
  const tracked = beatFrames(onset, PERIOD);
  assert.ok(Array.from(tracked).filter((f) => offGrid(f) > 1).length >= 100, 'tracked, the beats slide onto the pushed off-beats');
  const beats = onOneGrid(tracked, onset, PERIOD, changeAt);
  const off = Array.from(beats).filter((f) => offGrid(f) > 1);
  assert.ok(off.length <= 2, `${off.length} of ${beats.length} beats off the chords' grid`);
  // Without the harmony the onsets decide, and they say the "and".
  const byOnsets = onOneGrid(tracked, onset, PERIOD);
  assert.ok(Array.from(byOnsets).filter((f) => offGrid(f) > 1).length > beats.length / 2, 'by the onsets alone most beats are on the off-beat');
});

test('a piece tracked on the "and" from start to end, its chords changing on the beat, moves onto the chords\' beat; without such chords, or in a short piece, it stays', () => {
  // A drum kit's snare and hi-hat on every "and", louder than the kick on the beat, throughout.
  const onset = new Float32Array(FIRST + BEATS * PERIOD);
  for (let k = 0; k < BEATS; k++) {
    onset[FIRST + k * PERIOD] = 0.5;
    onset[FIRST + k * PERIOD + PERIOD / 2] = 1;
  }
  const tracked = beatFrames(onset, PERIOD);
  assert.ok(Array.from(tracked).every((f) => offGrid(f) >= PERIOD / 2 - 1), 'tracked, every beat is on the "and"');
  // The chords change on the bar's 1 and 3, never on the "and".
  const chordsOnBeat = (frame: number) => (offGrid(frame) <= 1 && Math.round((frame - FIRST) / PERIOD) % 2 === 0 ? 1 : 0.1);
  const moved = onOneGrid(tracked, onset, PERIOD, chordsOnBeat);
  assert.ok(Math.abs(moved.length - tracked.length) <= 1, `${moved.length} beats for ${tracked.length}`);
  assert.deepEqual(Array.from(moved).filter((f) => offGrid(f) > 1), [], 'beats more than a frame off the chords\' grid');
  // Chords changing as much on the "and" as on the beat say nothing: the piece stays as tracked.
  assert.equal(onOneGrid(tracked, onset, PERIOD, () => 0.5), tracked);
  // Nor does a short piece move: 100 beats give too few chord changes to overrule the tracking.
  const short = tracked.subarray(0, 100);
  assert.equal(onOneGrid(short, onset, PERIOD, chordsOnBeat), short);
});

/** Beats from FIRST with these gaps (frames). */
function withGaps(gaps: number[]): Int32Array {
  const beats = [FIRST];
  for (const gap of gaps) beats.push(beats[beats.length - 1] + gap);
  return Int32Array.from(beats);
}
const steady = (count: number) => Array.from({ length: count }, () => PERIOD);
const long = (count: number, by: number) => Array.from({ length: count }, () => PERIOD + by);

test('a half-beat slide is found where the gaps run long for a few beats; drift, jitter, a slower passage, a quarter-beat push and an unfinished slide are not slides', () => {
  // Ten gaps of 42 frames: half a period over ten beats, as the chart songs' slides went. Beats
  // 101-109 are off both phases; beat 110 is the first on the other.
  assert.deepEqual(halfBeatSlides(withGaps([...steady(100), ...long(10, 2), ...steady(100)]), PERIOD), [[101, 110]]);
  // One gap of 1.5 periods straight back after it: a slide of one gap, with no beat off both phases.
  assert.deepEqual(halfBeatSlides(withGaps([...steady(150), ...long(10, 2), PERIOD * 1.5, ...steady(150)]), PERIOD), [[151, 160], [161, 161]]);
  // The track's tempo a hair off the period (every fifth gap a frame long), and a frame of jitter.
  const drifting = withGaps(Array.from({ length: 300 }, (_, i) => PERIOD + (i % 5 === 0 ? 1 : 0) + (i % 7 === 3 ? 1 : i % 7 === 4 ? -1 : 0)));
  assert.deepEqual(halfBeatSlides(drifting, PERIOD), []);
  // A passage played 2.5% slower for 60 beats: its gaps add up to half a period every 20, but it is the music's time.
  assert.deepEqual(halfBeatSlides(withGaps([...steady(100), ...long(60, 1), ...steady(200)]), PERIOD), []);
  // A quarter of a period over five beats: a push, not the other phase.
  assert.deepEqual(halfBeatSlides(withGaps([...steady(100), ...long(5, 2), ...steady(100)]), PERIOD), []);
  // A slide the piece ends in never reaches the other phase.
  assert.deepEqual(halfBeatSlides(withGaps([...steady(300), ...long(12, 2)]), PERIOD), []);
});

/** Onsets on the grid FIRST + k * PERIOD only, `frames` long. */
function gridOnsets(frames: number): Float32Array {
  const onset = new Float32Array(frames);
  for (let f = FIRST; f < frames; f += PERIOD) onset[f] = 1;
  return onset;
}

test('beats put on one grid: a passage after a slide moved back, a slide straight back after it, and a moved beat past the onsets\' end dropped', () => {
  // Slides off the grid and, 50 beats on, a 1.5-period gap straight back: the 50 beats between go back half a period.
  const away = withGaps([...steady(150), ...long(10, 2), ...steady(50), PERIOD * 1.5, ...steady(150)]);
  const onset = gridOnsets(away[away.length - 1] + PERIOD);
  const back = onOneGrid(away, onset, PERIOD);
  assert.deepEqual(Array.from(back).filter((f) => offGrid(f) > 1), [], 'beats more than a frame off the grid');
  assert.deepEqual(Array.from(back.subarray(1)).filter((f, i) => f - back[i] !== PERIOD), [], 'gaps other than a period');
  assert.equal(back[0], FIRST);
  assert.equal(back[back.length - 1], away[away.length - 1]);
  // The piece ends off the grid, its last beat on the onsets' last frame: moved half a period on, it would be past the end.
  const offAtEnd = withGaps([...steady(300), ...long(10, 2), ...steady(20)]);
  const ending = gridOnsets(offAtEnd[offAtEnd.length - 1] + 1);
  const moved = onOneGrid(offAtEnd, ending, PERIOD);
  assert.ok(moved[moved.length - 1] < ending.length, 'every beat inside the onsets');
  assert.deepEqual(Array.from(moved).filter((f) => offGrid(f) > 1), [], 'beats more than a frame off the grid');
});

/** Songs whose charts give every beat: at least this share of our beats within 30 ms of a chart beat, on average. */
const MIN_MEAN_ON_CHART = 0.93;
/** And on each song. */
const MIN_ON_CHART = 0.75;
const ON_CHART_SECONDS = 0.03;

const songs = chartSongs();
after(() => closeAnalysisThreads());
test('rock and metal songs: our beats on their charts\' beats (half-beat slides moved back onto the grid)', { skip: skipUnless(songs.length > 0, 'the Frets on Fire songs (apt-get install ffmpeg fretsonfire-songs-muldjord fretsonfire-songs-sectoid)') }, async (t) => {
  const shares: number[] = [];
  // Each song decoded by ffmpeg, encoded to MP3, decoded and analysed on a worker thread, side by side.
  const analyses = songs.map((dir) => chartSongAnalysisThroughMp3(dir));
  for (const analysis of analyses) analysis.catch(() => {}); // each is awaited below, in order
  for (const [k, dir] of songs.entries()) {
    const analysis = await analyses[k];
    assert.ok(analysis, `${dir}: ffmpeg could not decode it`);
    const chart = chartBeatsOnAudio(dir, analysis);
    const ours = Array.from(planGrid(analysis).beats).filter((time) => time <= chart[chart.length - 1] + ON_CHART_SECONDS);
    const share = ours.filter((time) => offBeatSeconds(time, chart) <= ON_CHART_SECONDS).length / ours.length;
    t.diagnostic(`${dir}: ${(share * 100).toFixed(1)}% of ${ours.length} beats on the chart`);
    assert.ok(share >= MIN_ON_CHART, `${dir}: ${(share * 100).toFixed(1)}% of our beats on the chart`);
    shares.push(share);
  }
  const mean = shares.reduce((sum, share) => sum + share, 0) / shares.length;
  assert.ok(mean >= MIN_MEAN_ON_CHART, `on average ${(mean * 100).toFixed(1)}% of our beats on the charts`);
});

test('the analysis keeps both: its beats follow a passage of louder off-beats as tracked, its grid beats and grid bars stay on the grid, its peak is on a tracked beat', () => {
  const bpm = 120;
  const seconds = 150;
  const passage: [number, number] = [60, 100];
  const analysis = analysePcm(stereo(offBeatPassage(bpm, seconds, passage)));
  const grid = beatTimes(bpm, seconds);
  const offGridSeconds = (t: number) => offBeatSeconds(t, grid);
  // After the slide in (a few beats), inside the passage.
  const inPassage = (t: number) => t > passage[0] + 3 && t < passage[1];
  const tracked = Array.from(analysis.beatTimesSeconds).filter(inPassage);
  assert.ok(tracked.filter((t) => offGridSeconds(t) > 0.1).length >= 0.9 * tracked.length, 'the tracked beats in the passage sit on its off-beats');
  assert.ok(Math.abs(analysis.gridBeatTimesSeconds.length - grid.length) <= 1, `${analysis.gridBeatTimesSeconds.length} grid beats for ${grid.length}`);
  const offBeats = Array.from(analysis.gridBeatTimesSeconds).filter((t) => offGridSeconds(t) > ON_CHART_SECONDS);
  assert.deepEqual(offBeats, [], 'beats off the grid');
  const gridBeats = new Set(analysis.gridBeatTimesSeconds);
  assert.ok(analysis.gridBarTimesSeconds.length > 0 && Array.from(analysis.gridBarTimesSeconds).every((bar) => gridBeats.has(bar)), 'every grid bar starts on a grid beat');
  assert.equal(analysis.gridBarFeatures.length, analysis.gridBarTimesSeconds.length * (analysis.barFeatures.length / analysis.barTimesSeconds.length));
  assert.ok(analysis.beatTimesSeconds.some((t) => Math.abs(t - analysis.peakSeconds) < 1e-3), `the peak (${analysis.peakSeconds} s) on a tracked beat`);
});
