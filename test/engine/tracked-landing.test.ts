// A plan's tracked landing (engine/plan/peak-landing.ts) says how thin a thin landing is: the peak
// rule's margin, which an edit's search compares to keep the thin landing likeliest to hold. On a
// synthetic track (an onset on every beat at 120 BPM, a loud entrance at 20 s and a rival entrance
// at 8 s), the margin narrows as the rival grows, sure turns thin and then miss.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Analysis } from '../../engine/analysis/analyse.ts';
import { FAINT_JOIN_SHARE, landsAtOtherPhases, trackedLanding } from '../../engine/plan/peak-landing.ts';
import { ONSET_PHASES, frameSeconds } from '../../engine/analysis/frames.ts';
import { BAND_LEVELS } from '../../engine/analysis/band-levels.ts';

/** The analysis's frame rate (44,100 Hz / 256 hop). */
const FRAME_RATE = 44100 / 256;
const TRACK_SECONDS = 40;
const BEAT_SECONDS = 0.5;
/** RMS of the track outside its entrances, and of the climax from 20 s on (6 s long). */
const QUIET_RMS = 0.05;
const CLIMAX_RMS = 0.4;
const ENTRANCE_SECONDS = 6;

/** The same envelope at each of `phases` onset phases, one after another (the analysis's layout). */
function atEveryPhase(envelope: Float32Array, phases: number): Float32Array {
  const out = new Float32Array(phases * envelope.length);
  for (let p = 0; p < phases; p++) out.set(envelope, p * envelope.length);
  return out;
}

/**
 * The fields a tracked landing reads, at the analysis's frame rate: the track's tempo (its beats'
 * by default), the flux (an impulse on every beat) and RMS per frame at every onset phase, and
 * band levels (read only at joins: none here).
 */
function trackWith(rivalRms: number, tempoBpm = 60 / BEAT_SECONDS): Analysis {
  const frames = Math.round(TRACK_SECONDS * FRAME_RATE);
  const onset = new Float32Array(frames);
  const rms = new Float32Array(frames).fill(QUIET_RMS);
  for (let beat = 0; beat * BEAT_SECONDS < TRACK_SECONDS; beat++) onset[Math.round(beat * BEAT_SECONDS * FRAME_RATE)] = 1;
  for (const [at, level] of [[20, CLIMAX_RMS], [8, rivalRms]]) {
    const from = Math.round(at * FRAME_RATE);
    rms.fill(level, from, from + Math.round(ENTRANCE_SECONDS * FRAME_RATE));
  }
  return {
    frameRate: FRAME_RATE,
    onset,
    rms,
    fluxPhases: atEveryPhase(onset, ONSET_PHASES),
    rmsPhases: atEveryPhase(rms, ONSET_PHASES - 1),
    bandLevels: new Uint8Array(frames * BAND_LEVELS),
    durationSeconds: TRACK_SECONDS,
    tempoBpm,
  } as unknown as Analysis;
}

test('a tracked landing\'s margin narrows as a rival entrance grows: sure, then thin, then a miss', () => {
  const runs = [{ sourceStart: 0, length: 30 }];
  const hit = frameSeconds(Math.round(20 * FRAME_RATE), FRAME_RATE);
  const landings = [0.2, 0.3, 0.38, 0.39, 0.395, 0.45].map((rival) => trackedLanding(trackWith(rival), runs, hit));
  assert.deepEqual(landings.map((l) => l.landing), ['sure', 'sure', 'sure', 'thin', 'thin', 'miss']);
  for (let i = 1; i < 5; i++) assert.ok(landings[i].margin < landings[i - 1].margin, `landing ${i}: margin ${landings[i].margin} after ${landings[i - 1].margin}`);
  assert.ok(landings[4].margin > 0, 'a thin landing still wins by something');
  assert.equal(landings[5].margin, -Infinity);
  // A hit point a second off the entrance: a miss, whatever the rival.
  assert.equal(trackedLanding(trackWith(0.2), runs, hit - 1).landing, 'miss');
});

/**
 * trackWith's track, its onsets at the other onset phases half a beat later: the clip played a
 * quarter hop earlier or later tracks the off-beats, and hears its peak half a beat before the entrance.
 */
function offBeatAtOtherPhases(): Analysis {
  const analysis = trackWith(0.2);
  const frames = analysis.onset.length;
  const offBeats = new Float32Array(frames);
  for (let beat = 0; (beat + 0.5) * BEAT_SECONDS < TRACK_SECONDS; beat++) offBeats[Math.round((beat + 0.5) * BEAT_SECONDS * FRAME_RATE)] = 1;
  for (let p = 1; p < ONSET_PHASES; p++) analysis.fluxPhases.set(offBeats, p * frames);
  return analysis;
}

test('a landing is steady when it still lands at the other onset phases, and not when the beats there move half a beat', () => {
  const runs = [{ sourceStart: 0, length: 30 }];
  const hit = frameSeconds(Math.round(20 * FRAME_RATE), FRAME_RATE);
  assert.equal(trackedLanding(trackWith(0.2), runs, hit).landing, 'sure');
  assert.equal(landsAtOtherPhases(trackWith(0.2), runs, hit), true);
  const offBeat = offBeatAtOtherPhases();
  assert.equal(trackedLanding(offBeat, runs, hit).landing, 'sure', 'at its own phase the clip lands');
  assert.equal(landsAtOtherPhases(offBeat, runs, hit), false);
  // A quarter hop later, the clip tracks the off-beats and hears its peak on the one before the entrance.
  const shifted = trackedLanding(offBeat, runs, hit - BEAT_SECONDS / 2, 1);
  assert.notEqual(shifted.landing, 'miss', `heard at ${shifted.seconds}`);
});

test('a landing is thin when the clip reads its beat at a level the track\'s grid does not hold (3:2), sure at half or double', () => {
  const runs = [{ sourceStart: 0, length: 30 }];
  const hit = frameSeconds(Math.round(20 * FRAME_RATE), FRAME_RATE);
  const beatBpm = 60 / BEAT_SECONDS;
  assert.equal(trackedLanding(trackWith(0.2, beatBpm * 2), runs, hit).landing, 'sure');
  assert.equal(trackedLanding(trackWith(0.2, beatBpm / 2), runs, hit).landing, 'sure');
  const offLevel = trackedLanding(trackWith(0.2, beatBpm * 1.5), runs, hit);
  assert.equal(offLevel.landing, 'thin');
  assert.equal(offLevel.margin, 0);
});

/**
 * trackWith's track, its climax (20-26 s) a held chord with no onset of its own but louder in
 * every band than the rest: played after a lead-in, the climax's beat at the join is the onset
 * the join makes (join-onset.ts), the rise from the lead-in's band levels into the climax's.
 */
function climaxWithoutOnsets(): Analysis {
  // The climax is the track's peak: the part that plays it is the plan's anchor (placedParts).
  const analysis = { ...trackWith(QUIET_RMS), peakSeconds: 20 };
  const frames = analysis.onset.length;
  const from = Math.round(20 * FRAME_RATE), to = from + Math.round(ENTRANCE_SECONDS * FRAME_RATE);
  analysis.onset.fill(0, from - 1, to);
  analysis.fluxPhases.set(atEveryPhase(analysis.onset, ONSET_PHASES));
  // Band levels are a frame's from its window's start; the climax's frames are those whose windows reach its first samples.
  for (let f = 0; f < frames; f++) analysis.bandLevels.fill(f >= from - CLIMAX_WINDOW_FRAMES && f < to ? CLIMAX_BAND_LEVEL : QUIET_BAND_LEVEL, f * BAND_LEVELS, (f + 1) * BAND_LEVELS);
  return analysis;
}
/** Stored band levels (band-levels.ts bytes) of the quiet track and of its climax. */
const QUIET_BAND_LEVEL = 10;
const CLIMAX_BAND_LEVEL = 80;
/** Frames before the climax's first whose windows already hear it. */
const CLIMAX_WINDOW_FRAMES = 8;

test('a sure landing is thin when a join at H decides it: with the join\'s modelled onset at half, the clip\'s beats miss H', () => {
  const analysis = climaxWithoutOnsets();
  const hit = frameSeconds(Math.round(10 * FRAME_RATE), FRAME_RATE);
  // Lead-ins whose beats run 50 and 40 ms from the climax's grid, joined into the climax at H.
  const leadIn = (offsetSeconds: number) => [{ sourceStart: offsetSeconds, length: 10 }, { sourceStart: 20, length: 20 }];
  const fiftyOff = leadIn(0.45), fortyOff = leadIn(0.46);
  // Without the join's onset the clip keeps its lead-in's beats, 50 ms from H: the join's onset decides.
  assert.equal(trackedLanding(analysis, fiftyOff, hit, 0, 0).landing, 'miss');
  assert.equal(trackedLanding(analysis, fiftyOff, hit, 0, FAINT_JOIN_SHARE).landing, 'miss');
  const decided = trackedLanding(analysis, fiftyOff, hit);
  assert.equal(decided.landing, 'thin');
  assert.equal(decided.margin, 0);
  // Where half the join's onset still moves the beats onto H, the landing stays sure.
  assert.equal(trackedLanding(analysis, fortyOff, hit, 0, FAINT_JOIN_SHARE).landing, 'sure');
  assert.equal(trackedLanding(analysis, fortyOff, hit).landing, 'sure');
});
