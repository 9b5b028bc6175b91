// The deepest search of an edit with a hit point (engine/plan/window-anchors.ts): every beat of
// the track as the source time played at H, by a plain window of D seconds screened on the
// source's own beats. On a piece with one climax, the climax's entrance is the first anchor; its
// plans land the peak at H, and with that anchor already tried, its plain window lands, cut. Where
// the track's beats are read at another tempo than its clips are heard at, the windows are
// screened on its onsets beat-tracked at the clips' tempo, and the climax is still found; the beat
// the screen adds at a clip's end is then a clip's beat on, as the clip's tracking hears it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { barGrid } from '../../engine/plan/bar-grid.ts';
import { clipsKeepTrackTempo } from '../../engine/plan/peak-landing.ts';
import { windowAnchors, windowRuns, windowSearch } from '../../engine/plan/window-anchors.ts';
import { climaxPiece, stereo } from '../support/synth.ts';
import { laidOut } from '../support/laid-out.ts';

const BPM = 120;
/** The tempo a 3:2 error reads the piece at. */
const MISREAD_BPM = (BPM * 3) / 2;
const TRACK_SECONDS = 80;
const CLIMAX_SECONDS = 40;
const DURATION = 20;
const HIT = 15;
/** The issue's tolerance for the peak at H. */
const HIT_TOLERANCE_SECONDS = 0.025;
/** A late H: this long before the clip's end, between the misread beat (1/3 s) and the clips' beat (1/2 s). */
const LATE_HIT_BEFORE_END_SECONDS = 0.42;

let piece: { source: ReturnType<typeof stereo>; analysis: ReturnType<typeof analysePcm> } | undefined;
/** The piece with one climax and its analysis, made once for every test (no test changes either). */
function climax() {
  if (!piece) {
    const source = stereo(climaxPiece(BPM, TRACK_SECONDS, CLIMAX_SECONDS));
    piece = { source, analysis: analysePcm(source) };
  }
  return piece;
}

/** The same audio with its beats read at 180 BPM (a 3:2 error): its clips are still heard at 120. */
function misreadAnalysis(analysis: ReturnType<typeof analysePcm>): ReturnType<typeof analysePcm> {
  const misreadBeatSeconds = 60 / MISREAD_BPM;
  const beatTimesSeconds = Float32Array.from({ length: Math.floor(TRACK_SECONDS / misreadBeatSeconds) }, (_, i) => i * misreadBeatSeconds);
  return { ...analysis, tempoBpm: MISREAD_BPM, beatTimesSeconds };
}

const totalLength = (runs: { length: number }[]) => runs.reduce((sum, run) => sum + run.length, 0);

test("window anchors: the climax's entrance first, every window inside the track, and its window's clip has its peak at H", () => {
  const { source, analysis } = climax();
  assert.ok(Math.abs(analysis.peakSeconds - CLIMAX_SECONDS) < HIT_TOLERANCE_SECONDS, `peak ${analysis.peakSeconds}`);
  const anchors = windowAnchors(barGrid(analysis), DURATION, HIT);
  assert.ok(anchors.length > 0, 'anchors');
  assert.ok(Math.abs(anchors[0].seconds - analysis.peakSeconds) < HIT_TOLERANCE_SECONDS, `first anchor ${anchors[0].seconds}`);
  assert.equal(anchors[0].landing, 'sure');
  for (const { seconds } of anchors) assert.ok(seconds - HIT >= 0 && seconds - HIT + DURATION <= analysis.durationSeconds + 1e-9, `a window through ${seconds} leaves the track`);
  // Beats in the quiet bars long before the climax rise into nothing: no window puts them at H.
  assert.ok(anchors.every(({ seconds }) => seconds > CLIMAX_SECONDS - 10), `anchors ${anchors.map((a) => a.seconds.toFixed(2)).join(' ')}`);
  const heard = analysePcm(laidOut(source.channels, windowRuns(anchors[0].seconds, DURATION, HIT))).peakSeconds;
  assert.ok(Math.abs(heard - HIT) <= HIT_TOLERANCE_SECONDS, `the window's clip has its peak at ${heard.toFixed(3)}, H ${HIT}`);
});

test("window anchors where the track's beats are read at 3:2 of the tempo its clips are heard at: screened on the clips' beats, the climax's entrance first", () => {
  const { source, analysis } = climax();
  const misread = misreadAnalysis(analysis);
  assert.equal(clipsKeepTrackTempo(misread), false);
  const anchors = windowAnchors(barGrid(misread), DURATION, HIT);
  assert.ok(anchors.length > 0, 'anchors');
  assert.ok(Math.abs(anchors[0].seconds - analysis.peakSeconds) < HIT_TOLERANCE_SECONDS, `first anchor ${anchors[0].seconds}, peak ${analysis.peakSeconds}`);
  const heard = analysePcm(laidOut(source.channels, windowRuns(anchors[0].seconds, DURATION, HIT))).peakSeconds;
  assert.ok(Math.abs(heard - HIT) <= HIT_TOLERANCE_SECONDS, `the window's clip has its peak at ${heard.toFixed(3)}, H ${HIT}`);
});

test("window anchors where the track's beats are misread, H less than a beat before the clip's end: the screen adds no beat after the climax that the clip's tracking does not hear", () => {
  const { source, analysis } = climax();
  const misread = misreadAnalysis(analysis);
  // The climax's window ends 0.42 s after it: more than the misread beat (0.33 s), less than the
  // clips' beat (0.5 s). The clip's tracking ends its beats on the climax, which the peak rule
  // never takes as the clip's last beat, so the clip hears its peak elsewhere, not at H.
  const hit = DURATION - LATE_HIT_BEFORE_END_SECONDS;
  const heard = analysePcm(laidOut(source.channels, windowRuns(analysis.peakSeconds, DURATION, hit))).peakSeconds;
  assert.ok(Math.abs(heard - hit) > HIT_TOLERANCE_SECONDS, `the climax's window is heard with its peak at ${heard.toFixed(3)}, H ${hit}`);
  // So no window anchor may put the climax there (the screen's end beat a clip's period on, not the misread track's).
  const anchors = windowAnchors(barGrid(misread), DURATION, hit);
  const atClimax = anchors.filter(({ seconds }) => Math.abs(seconds - analysis.peakSeconds) < HIT_TOLERANCE_SECONDS);
  assert.deepEqual(atClimax, [], `anchors at the climax ${atClimax.map((a) => `${a.seconds.toFixed(3)} ${a.landing}`).join(' ')}`);
});

test('window search: a plan on the first anchor lands; with that anchor tried, its plain window lands, cut, exactly D long', () => {
  const { source, analysis } = climax();
  const grid = barGrid(analysis);
  for (const tried of [[], [analysis.peakSeconds]]) {
    const found = windowSearch(grid, DURATION, HIT, tried);
    assert.ok(found && found.landing !== 'miss', `landing ${found?.landing} with ${tried.length} tried`);
    const { runs, ending } = found.choice;
    assert.ok(Math.abs(totalLength(runs) - DURATION) < 1e-9, 'exactly D long');
    if (tried.length > 0) {
      assert.equal(runs.length, 1, 'a plain window');
      assert.equal(ending, 'cut');
    }
    const heard = analysePcm(laidOut(source.channels, runs)).peakSeconds;
    assert.ok(Math.abs(heard - HIT) <= HIT_TOLERANCE_SECONDS, `the clip's peak at ${heard.toFixed(3)}, H ${HIT}, with ${tried.length} tried`);
  }
});
