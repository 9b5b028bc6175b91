// Edits of real recordings (Debian's hyperrogue-music, drascula-music) whose cheapest plans on the
// track's peak all land the clip's own peak elsewhere, land it only thinly, or that were refused:
// the edit then searches wider (more lead-ins and endings, screened on the source's beats),
// anchors where such a clip hears its peak or on another entrance, or joins two runs before the
// peak, or is listened to and planned again; the decoded clip, analysed on its own, has its peak
// within 25 ms of H. Skips when a package or ffmpeg is absent (the suite must pass without).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analysePcm, type Analysis } from '../../engine/analysis/analyse.ts';
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';
import { indexFrames } from '../../engine/mp3/frame-index.ts';
import { decodeAll } from '../../engine/mp3/decode.ts';
import { makeClip } from '../../engine/clip.ts';
import { type ClipPlan, PLAN_SAMPLE_RATE } from '../../engine/plan/plan.ts';
import { barGrid } from '../../engine/plan/bar-grid.ts';
import { planClip } from '../../engine/plan/plan-clip.ts';
import { createEnginePool } from '../../engine/pool.ts';
import { decodePiece, hasTool, heldOutFiles, soundtrackFiles } from '../support/soundtracks.ts';
import { decodeMp3 } from '../support/audio.ts';
import { joinNovelties, withinNovelty } from '../support/join-novelty.ts';

/** The landing tolerance for the clip's own peak. */
const HIT_TOLERANCE_SECONDS = 0.025;
/**
 * Edits of `npm run bench -- edits-all` (seed 4242) whose clips heard their peak 1.5 to 35 s from
 * H before heard anchors: a bigger entrance later in the run through the peak, or earlier. (A third,
 * hr3-jungle D=20 H=16.92, went when candidate tempos were read between whole lags: the whole
 * piece now reads 111 BPM, as aubio does, and its 20 s clips 148, so no plan of it lands. A fourth,
 * hr3-icyland D=45 H=8.56, went when plans were checked on the onsets at their parts' phases: a plan
 * on the track's own peak now lands thinly, by 0.002, so no heard anchor is tried, and its clip
 * hears the peak at 30.3 s; 17 more held-out edits landed than were lost.)
 */
const HEARD_ANCHOR_EDITS = [
  { piece: 'hr3-icyland.ogg', duration: 60, hit: 10.2 },
];
/**
 * Edits of `EDITS_ALL_SEED=9001 npm run bench -- edits-all` that missed before the wide search:
 * every plan checked replayed a bigger rise before H (the clip's own peak at 3.55 s and 13.48 s).
 */
const WIDE_SEARCH_EDITS = [
  { piece: 'hr-domina-hunting.ogg', duration: 20, hit: 15.51 },
  { piece: 'hr-domina-mountain.ogg', duration: 60, hit: 13.27 },
];
/**
 * Edits of drascula-music's track4.ogg, a 60 s piece whose peak is 24.6 s in, that were refused
 * (`EDITS_ALL_SEED=31337 npm run bench -- edits-all`): no single run of other bars fills the time
 * before H without the climax's own, so the lead-in joins two. (H = 58.48, the other refused
 * edit, is still made, but since plans are checked on the RMS at their parts' phases every plan
 * of it misses: 1.5 s after the peak is too short a climax for the clip to hear it as its peak,
 * and its clip hears 19.6 s. Held out, that change landed 5 edits and lost 2.)
 */
const TWO_RUN_LEAD_IN_EDITS = [
  { piece: 'track4.ogg', duration: 60, hit: 50 },
];
/**
 * Edits of drascula-music whose plans on the track's peak landed only thinly and missed
 * (`EDITS_ALL_SEED=9001` and `31337 npm run bench -- edits-all`, the clips' own peaks
 * 3.2 s and 2.6 s early): a thin landing now tries the other entrances first, and these land
 * surely on another one (source 32.1 s and 45.4 s at H; the tracks' peaks are at 53.4 s and 12.6 s).
 */
const THIN_LANDING_EDITS = [
  { piece: 'track5.ogg', duration: 45, hit: 24.5 },
  { piece: 'track10.ogg', duration: 20, hit: 16.29 },
];
/**
 * Edits of drascula-music that only land thinly whichever plan they take (\`EDITS_ALL_SEED=31337
 * npm run bench -- edits-all\`): the thin landing first in order of preference won by a hair and
 * its clip heard the peak elsewhere; of the thin landings tracked, the one with the widest margin lands.
 */
const WIDEST_THIN_EDITS = [
  { piece: 'track13.ogg', duration: 45, hit: 39.71 },
  { piece: 'track7.ogg', duration: 45, hit: 11.63 },
];
/**
 * An edit of drascula-music (`npm run bench -- edits-all`, seed 4242) whose widest thin landing
 * lands only at the onset phase its parts play (peak-landing.ts landsAtOtherPhases): its clip heard
 * the peak elsewhere. The wide search's steady landing lands.
 */
const STEADY_THIN_EDITS = [
  { piece: 'track7.ogg', duration: 30, hit: 12.07 },
];
/**
 * Edits with H in the clip's last 3 s (drawn as `EDITS_ALL_HITS=late EDITS_ALL_SEED=5 npm run bench -- edits-all` draws them) whose plans
 * left the climax after a beat or two for a bar-line ending quieter than it: inside the peak rule's
 * window after H, that last part lowered the rise the clip heard at H, and an entrance 12.8 s and
 * 19.7 s earlier won. An ending quieter than the climax now costs more (after-peak.ts TAIL_DROP_COST).
 */
const LATE_HIT_EDITS = [
  { piece: 'hr3-rlyeh.ogg', duration: 60, hit: 58.43 },
  { piece: 'hr3-laboratory.ogg', duration: 45, hit: 42.81 },
];
/**
 * An edit with H in the clip's last 3 s (the same draw) that no plan on the track's peak or the
 * peak rule's other choice landed: anchored on the entrance that rises most over the two beats
 * the clip plays after H (anchor-with-room.ts), the peak lands at H.
 */
const QUICK_RISE_EDITS = [
  { piece: 'track4.ogg', duration: 20, hit: 18.53 },
];
/**
 * Edits with H in the clip's last 3 s (the same draw) of pieces about as loud all through: every
 * plan with a single run into the peak brought the track's own build before H, and the clip heard
 * an entrance of its lead-in rise more (18.7 s early, both). The wide search's lead-ins that take a
 * breath of the track's quietest two bars before the climax (lead-in.ts breathLeadIns) land it at H.
 * hr3-laboratory's H leaves the clip less than the peak rule's window after it: the first checks
 * try breaths there, and the wide search, which tracks only its first three landings on the
 * source's beats, did not reach one that lands (its clip's peak 11 s early).
 */
const BREATH_EDITS = [
  { piece: 'track20.ogg', duration: 45, hit: 42.25 },
  { piece: 'track20.ogg', duration: 60, hit: 57.61 },
  { piece: 'hr3-laboratory.ogg', duration: 60, hit: 57.26 },
];
/**
 * Edits whose one join from the climax into the track's ending is more abrupt than the track's
 * 90th percentile of bar lines (novelty 2.89 against 2.78, 3.20 against 2.39 before): a detour of
 * two joins within it ends them with the track instead (after-peak.ts smoothDetoursToTrackEnd).
 */
const SMOOTH_DETOUR_EDITS = [
  { piece: 'track16.ogg', duration: 20, hit: 8.15 },
  { piece: 'track26.ogg', duration: 30, hit: 16.52 },
];
/**
 * Edits of hyperrogue-music (`npm run bench -- edits-all`, seed 4242) whose plans landed only
 * thinly by the check and whose clips heard their peak 0.22 and 0.21 s early: listened to
 * (engine/listened-plan.ts), each is planned again knowing where its clip was heard, and lands.
 */
const LISTENED_EDITS = [
  { piece: 'hr-domina-mountain.ogg', duration: 30, hit: 22.34 },
  { piece: 'hr-domina-mountain.ogg', duration: 60, hit: 51.31 },
];
const EDITS = [...LISTENED_EDITS, ...HEARD_ANCHOR_EDITS, ...WIDE_SEARCH_EDITS, ...TWO_RUN_LEAD_IN_EDITS, ...THIN_LANDING_EDITS, ...WIDEST_THIN_EDITS, ...STEADY_THIN_EDITS, ...LATE_HIT_EDITS, ...QUICK_RISE_EDITS, ...BREATH_EDITS, ...SMOOTH_DETOUR_EDITS];
/**
 * Held-out edits (supertux-data, in `BENCH_MUSIC=held-out npm run bench -- edits-all`'s draw, seed 4242) whose clips heard a bigger
 * entrance later in the run through the climax (cave: 46.8 s in the track, the peak 30.5 s;
 * ghostforest2: 85.8 s) and that no other anchor landed: planned again on the same anchor with
 * plans that do not play that entrance (edit-plan.ts withoutHeardRivals), the peak lands at H.
 */
const HEARD_RIVAL_EDITS = [
  { piece: 'antarctic/cave.ogg', duration: 45, hit: 6.31 },
  { piece: 'forest/ghostforest2.ogg', duration: 60, hit: 37.96 },
];

/**
 * Held-out edits (supertux-data, seed 4242) of loop pieces whose climax is in their last bars
 * (bossattack: 74.7 s of 79.6; tropicalbreeze: 72.0 of 73.1) with an early H: less than a bar
 * follows the climax, so no ending on from it fills D - H and no detour reaches the track's end;
 * every plan came from another anchor and heard the climax instead. The climax now plays on to
 * the track's end or a bar line after it, and the clip returns to bars before it and ends on a
 * bar line (after-peak.ts returnsAfterPeak).
 */
const RETURN_EDITS = [
  { piece: 'antarctic/bossattack.ogg', duration: 60, hit: 7.21 },
  { piece: 'tropical/tropicalbreeze.ogg', duration: 60, hit: 6.88 },
];
/** The tuned and the held-out music installed, listed once. */
const installed = [...soundtrackFiles(), ...heldOutFiles()];
/** The installed file of `piece` (a file name, or its last folders too). */
const file = (piece: string) => installed.find((f) => f.endsWith(path.sep + piece));
const skipUnless = (edits: typeof EDITS, packages: string) => (!hasTool('ffmpeg') || edits.some((edit) => !file(edit.piece)) ? `needs ffmpeg and ${packages}` : false);
const skip = skipUnless(EDITS, 'hyperrogue-music and drascula-music');

/** A check of an edit's plan beyond its landing (`what` names the edit). */
type PlanCheck = (what: string, analysis: Analysis, plan: ClipPlan) => void;

async function assertEditsLand(t: TestContext, edits: typeof EDITS, checkPlan?: PlanCheck): Promise<void> {
  for (const piece of new Set(edits.map((edit) => edit.piece))) {
    const pcm = decodePiece(file(piece)!);
    assert.ok(pcm, `${piece}: ffmpeg could not decode it`);
    const mp3 = await encodeGaplessMp3(pcm.channels[0], pcm.channels[1]);
    const index = indexFrames(mp3);
    const analysis = analysePcm(await decodeAll(mp3, index));
    for (const { duration, hit } of edits.filter((edit) => edit.piece === piece)) {
      const what = `${piece} D=${duration} H=${hit}`;
      const clip = await makeClip(mp3, index, analysis, { mode: 'edit', durationSeconds: duration, hitPointSeconds: hit });
      checkPlan?.(what, analysis, clip.plan);
      const decoded = await decodeMp3(clip.mp3);
      assert.equal(decoded.channels[0].length, Math.round(duration * PLAN_SAMPLE_RATE), `${what}: length`);
      const peak = analysePcm(decoded).peakSeconds;
      t.diagnostic(`${what}: the clip's own peak at ${peak.toFixed(3)} s`);
      assert.ok(Math.abs(peak - hit) <= HIT_TOLERANCE_SECONDS, `${what}: the clip's own peak at ${peak.toFixed(3)}`);
    }
  }
}

test('thin edits whose clips hear their peak off H: listened to, planned again, and the peak lands at H', { skip }, (t) =>
  assertEditsLand(t, LISTENED_EDITS, (what, analysis, plan) => {
    const first = planClip(analysis, { mode: 'edit', durationSeconds: plan.durationSeconds, hitPointSeconds: plan.hitPointSeconds! });
    assert.equal(first.hitPointLanding, 'thin', `${what}: the first plan's landing`);
    assert.notDeepEqual(plan.parts, first.parts, `${what}: the clip is not the first plan's`);
  }));

test('a thin edit heard and planned again: POST /clip-plan\'s engine task returns the plan the clip task\'s clip follows, and that clip', { skip }, async () => {
  const { piece, duration, hit } = LISTENED_EDITS[0];
  const pcm = decodePiece(file(piece)!)!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-listened-'));
  const pool = createEnginePool({ threads: 1 });
  try {
    const track = path.join(dir, 'track.mp3');
    fs.writeFileSync(track, await encodeGaplessMp3(pcm.channels[0], pcm.channels[1]));
    const { bytes } = await pool.analyse({ path: track });
    const request = { analysis: bytes, path: track, mode: 'edit' as const, durationSeconds: duration, hitPointSeconds: hit };
    const { plan, clip: heard } = await pool.plan(request);
    const clip = await pool.clip(request);
    assert.deepEqual(plan, clip.plan);
    assert.equal(plan.hitPointLanding, 'thin');
    assert.ok(heard, 'the plan task returns the clip it heard');
    assert.deepEqual(heard.mp3, clip.mp3, 'that clip is the clip task\'s');
  } finally {
    await pool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('edits whose plans on the track\'s peak and other entrances all miss: anchored where the clip hears its peak, the peak lands at H', { skip }, (t) => assertEditsLand(t, HEARD_ANCHOR_EDITS));

test('edits whose cheapest plans all replay a bigger rise before H: the wide search finds one that lands the peak at H', { skip }, (t) => assertEditsLand(t, WIDE_SEARCH_EDITS));

test('edits of a 60 s piece with a late H: a lead-in of two runs, not a refusal, and the peak lands at H', { skip }, (t) => assertEditsLand(t, TWO_RUN_LEAD_IN_EDITS));

test('edits whose plans on the track\'s peak land only thinly: another entrance lands surely, and the peak lands at H', { skip }, (t) => assertEditsLand(t, THIN_LANDING_EDITS));

test('edits that land only thinly whichever plan they take: the thin landing by the widest margin lands the peak at H', { skip }, (t) => assertEditsLand(t, WIDEST_THIN_EDITS));

test('an edit whose widest thin landing holds only at its own onset phase: a steady one is searched for, and the peak lands at H', { skip }, (t) => assertEditsLand(t, STEADY_THIN_EDITS));

test('edits with H a second or two before the clip\'s end: the ending keeps the climax\'s level, and the peak lands at H', { skip }, (t) => assertEditsLand(t, LATE_HIT_EDITS));

test('an edit with H a second or two before the clip\'s end: anchored on the entrance that rises most over the beats after H, the peak lands at H', { skip }, (t) => assertEditsLand(t, QUICK_RISE_EDITS));

test('edits with a late H of pieces as loud all through: a breath of quiet bars before the climax, and the peak lands at H', { skip }, (t) => assertEditsLand(t, BREATH_EDITS));

test('edits whose one join into the track\'s ending is abrupt: two joins within the seam limit end them with the track, and the peak lands at H', { skip }, (t) =>
  assertEditsLand(t, SMOOTH_DETOUR_EDITS, (what, analysis, plan) => {
    assert.equal(plan.ending, 'track_end', `${what}: ending`);
    const limit = barGrid(analysis).seamLimit;
    for (const [i, novelty] of joinNovelties(analysis, plan.parts).entries()) {
      assert.ok(withinNovelty(novelty, limit), `${what}: join ${i + 1} novelty ${novelty.toFixed(2)} > the track's 90th percentile ${limit.toFixed(2)}`);
    }
  }));

test('held-out edits whose clips hear a bigger entrance after the climax: planned again without it, the peak lands at H', { skip: skipUnless(HEARD_RIVAL_EDITS, 'supertux-data') }, (t) =>
  assertEditsLand(t, HEARD_RIVAL_EDITS));

test('held-out loop pieces with the climax in their last bars and an early H: the clip returns to the bars before the climax, and the peak lands at H', { skip: skipUnless(RETURN_EDITS, 'supertux-data') }, (t) =>
  assertEditsLand(t, RETURN_EDITS, (what, analysis, plan) => {
    assert.equal(plan.ending, 'bar_line', `${what}: ending`);
    const seconds = (samples: number) => samples / PLAN_SAMPLE_RATE;
    const peakPart = plan.parts.findIndex((part) => seconds(part.clipStart + part.length) > plan.hitPointSeconds!);
    const last = plan.parts.at(-1)!;
    assert.ok(peakPart >= 0 && peakPart < plan.parts.length - 1, `${what}: the climax is not the last part`);
    assert.ok(seconds(last.sourceStart + last.length) <= analysis.peakSeconds, `${what}: the last part ends at ${seconds(last.sourceStart + last.length).toFixed(2)} s, before the climax (${analysis.peakSeconds.toFixed(2)} s)`);
  }));
