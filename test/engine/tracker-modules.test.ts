// Beats and bars against ground truth, and edits of pieces as loud all through: tracker modules
// (tecnoballz-data's .mod files) are scores, so their true beats and bars are known
// (test/support/tracker-beats.ts). Rendered by ffmpeg, as the other recordings. Skips when the package or ffmpeg is absent (the suite must pass without).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { hasTool, soundtrackFiles } from '../support/soundtracks.ts';
import { trackerModules } from '../support/tracker-beats.ts';
import { BEAT_TOLERANCE_SECONDS, decodeMp3, matchedBeats } from '../support/audio.ts';
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';
import { indexFrames } from '../../engine/mp3/frame-index.ts';
import { decodeAll } from '../../engine/mp3/decode.ts';
import { makeClip } from '../../engine/clip.ts';
import { planClip } from '../../engine/plan/plan-clip.ts';
import { endsOnBeat, offBeatSeconds, planEndSeconds } from '../support/edit-ending.ts';

/**
 * Shares of our beats and bar lines that lie on true ones. Measured (analysis v12): beats 0.842,
 * bars 0.694. 10 of the 14 modules have 0.96-1.00 of their beats on true ones. Most misses come
 * from two pieces that change tempo part-way: fridge-in-space goes from 125 to 93.75 BPM at 96 s
 * (274 of 496 beats on), and termigator from 93.75 to 150 BPM at 71 s (115 of 150). One tempo per
 * piece cannot follow either change. The rest is tecnoballz's even eighth-note stream, whose beat
 * phase flips between sections (172 of 482).
 */
const BEAT_SHARE_TARGET = 0.8;
const BAR_SHARE_TARGET = 0.6;

const skip = !hasTool('ffmpeg') || !soundtrackFiles().some((f) => f.endsWith('.mod')) ? 'needs ffmpeg and tracker modules (tecnoballz-data)' : false;

test(`beats and bar lines on the modules' true beats and bars (within ${BEAT_TOLERANCE_SECONDS * 1000} ms)`, { skip }, (t) => {
  let beats = 0, beatsOn = 0, bars = 0, barsOn = 0;
  const rows: string[] = [];
  for (const { file, truth, pcm } of trackerModules()) {
    const analysis = analysePcm(pcm);
    const beatHits = matchedBeats(analysis.beatTimesSeconds, truth.beatSeconds);
    const barHits = matchedBeats(analysis.barTimesSeconds, truth.barSeconds);
    beats += analysis.beatTimesSeconds.length;
    beatsOn += beatHits;
    bars += analysis.barTimesSeconds.length;
    barsOn += barHits;
    rows.push(`${path.basename(file)} ${beatHits}/${analysis.beatTimesSeconds.length} ${barHits}/${analysis.barTimesSeconds.length}`);
  }
  t.diagnostic(`beats on true beats ${(beatsOn / beats).toFixed(3)}, bar lines on true bars ${(barsOn / bars).toFixed(3)}: ${rows.join('; ')}`);
  assert.ok(rows.length >= 5, `only ${rows.length} modules read`);
  assert.ok(beatsOn / beats >= BEAT_SHARE_TARGET, `beats on true beats ${(beatsOn / beats).toFixed(3)}`);
  assert.ok(barsOn / bars >= BAR_SHARE_TARGET, `bar lines on true bars ${(barsOn / bars).toFixed(3)}`);
});

/**
 * Edits of modules about as loud all through (within ~2 dB), with the H where the cheapest
 * lead-ins left no rise at H and the clip's own analysis put its peak elsewhere (2.9 and 3.3 s
 * early). Checking also the lead-ins that play the quietest 8 beats before H lands them.
 */
const FLAT_MODULE_EDITS: [module: string, duration: number, hit: number][] = [['mon-lapin_reg-zbb.mod', 20, 17.92], ['termigator_reg-zbb.mod', 60, 17.1]];
/** The landing tolerance for the peak at H. */
const LANDING_SECONDS = 0.025;

test('edits of modules as loud all through: the clip, decoded and analysed on its own, has its peak at H', { skip }, async (t) => {
  let edits = 0;
  for (const { file, pcm } of trackerModules()) {
    const wanted = FLAT_MODULE_EDITS.filter(([name]) => file.endsWith(name));
    if (wanted.length === 0) continue;
    const mp3 = await encodeGaplessMp3(pcm.channels[0], pcm.channels[1]);
    const index = indexFrames(mp3);
    const analysis = analysePcm(await decodeAll(mp3, index));
    for (const [name, duration, hit] of wanted) {
      const clip = await makeClip(mp3, index, analysis, { mode: 'edit', durationSeconds: duration, hitPointSeconds: hit });
      const peak = analysePcm(await decodeMp3(clip.mp3)).peakSeconds;
      t.diagnostic(`${name} D=${duration} H=${hit}: the clip's own peak at ${peak.toFixed(3)}`);
      assert.ok(Math.abs(peak - hit) <= LANDING_SECONDS, `${name} D=${duration} H=${hit}: the clip's own peak at ${peak.toFixed(3)}`);
      edits++;
    }
  }
  assert.equal(edits, FLAT_MODULE_EDITS.length, 'every module of the list was read');
});

/**
 * Edits of tecno-winn whose bar-line ending fell where our beats pass from one phase of the
 * score to the other (three beat periods of 0.59 s against 0.64 s): the clip stopped 54-68 ms off
 * the score's beat at 103.9 s. A clip ends on a true beat, or with the track.
 */
const UNSTEADY_ENDING_EDITS: [module: string, duration: number, hit: number][] = [['tecno-winn.mod', 45, 24.81], ['tecno-winn.mod', 20, 15.52]];

test('edits of modules end with the track or on a true beat, not where our beats change phase', { skip }, async (t) => {
  let edits = 0;
  for (const { file, truth, pcm } of trackerModules()) {
    const wanted = UNSTEADY_ENDING_EDITS.filter(([name]) => file.endsWith(name));
    if (wanted.length === 0) continue;
    const mp3 = await encodeGaplessMp3(pcm.channels[0], pcm.channels[1]);
    const analysis = analysePcm(await decodeAll(mp3, indexFrames(mp3)));
    for (const [name, duration, hit] of wanted) {
      const plan = planClip(analysis, { mode: 'edit', durationSeconds: duration, hitPointSeconds: hit });
      const end = planEndSeconds(plan);
      const off = offBeatSeconds(end, truth.beatSeconds);
      t.diagnostic(`${name} D=${duration} H=${hit}: ${plan.ending} at ${end.toFixed(3)} s, ${(off * 1000).toFixed(0)} ms from a true beat`);
      assert.ok(endsOnBeat(plan, truth.beatSeconds), `${name} D=${duration} H=${hit}: ends (${plan.ending}) at ${end.toFixed(3)} s, ${(off * 1000).toFixed(0)} ms from a true beat`);
      edits++;
    }
  }
  assert.equal(edits, UNSTEADY_ENDING_EDITS.length, 'every module of the list was read');
});
