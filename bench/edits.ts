// Edits and loops judged against true beats: rendered demo songs 6-15 (their beats and bars are
// known by design), tracker modules (tecnoballz-data: the score gives every beat and bar), the
// rock and metal songs of Frets on Fire (their charts give every beat), songs written as MIDI
// scores (openttd-openmsx, held out, in FluidR3 and in four other sound fonts;
// planetblupi-music-midi; Freedoom's level music, a tuning set; scored-midi.ts), and songs produced
// in LMMS (lmms, held out: the project gives tempo and meter; lmms-songs.ts). Per set: the seams of
// edits on a true beat at both sides, loop wraps on a true beat, endings on a true beat or with the
// track, the track's peak within 25 ms of H, exact length, and the beat grid's beat and downbeat
// F-measure (+-70 ms). Each edit has a random D in {20, 30, 45, 60} s and H in [1, D - 1]. Loop
// wraps and endings are also counted among the requests whose D (and H) leave one on a true beat
// at all: a short loop of slow beats may hold no whole number of beats within 1% of D.
import path from 'node:path';
import { planTrack } from '../catalog/demo/plan.ts';
import { renderTrack } from '../catalog/demo/render.ts';
import { trackSeed, DEFAULT_SEED } from '../catalog/demo/generate.ts';
import { seededRandom } from '../catalog/demo/random.ts';
import { analysePcm } from '../engine/analysis/analyse.ts';
import { encodeGaplessMp3 } from '../engine/mp3/encode.ts';
import { indexFrames } from '../engine/mp3/frame-index.ts';
import { decodeAll, type Pcm } from '../engine/mp3/decode.ts';
import { makeClip } from '../engine/clip.ts';
import { isEngineError } from '../engine/errors.ts';
import { type ClipPlan, LANDING_SECONDS, MAX_STRETCH, PLAN_SAMPLE_RATE } from '../engine/plan/plan.ts';
import { type PlanGrid, planGrid } from '../engine/plan/grid.ts';
import { planClip } from '../engine/plan/plan-clip.ts';
import { benchMusic, decodePiece } from '../test/support/soundtracks.ts';
import { trackerModules } from '../test/support/tracker-beats.ts';
import { chartBeatsOnAudio, chartSongs, decodeChartSong } from '../test/support/chart-songs.ts';
import { otherSoundFont, type ScoreSet, scoredSongs } from '../test/support/scored-midi.ts';
import { lmmsSongs } from '../test/support/lmms-songs.ts';
import { ON_BEAT_SECONDS, endsOnBeat, offBeatSeconds, seamSides } from '../test/support/edit-ending.ts';
import { beatFMeasure, TRACKED_BEAT_F } from '../test/support/audio.ts';
import { machineLine } from './machine.ts';
import { editRow } from './edit-rows.ts';

const DEMO_SONGS = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
const EDITS_PER_TRACK = 4;
const LOOPS_PER_TRACK = 2;
const DURATIONS = [20, 30, 45, 60];
const LOOP_DURATIONS = [8, 12, 16, 24];
const MIN_RECORDING_SECONDS = 60;
/** The installed recordings of `edits-all` (BENCH_MUSIC) edited at most, in their order. */
const MAX_RECORDINGS = 40;
const SET_SEED = 20261123;

interface Tally {
  tracks: number;
  edits: number;
  refused: number;
  exact: number;
  landed: number;
  endsOnBeat: number;
  endings: Record<string, number>;
  seams: number;
  seamsOnBeat: number;
  /** Seams of the pieces whose beats are tracked right (beat F at least TRACKED_BEAT_F), and those on a true beat: the planner's share of the seams, apart from the beat tracking's. */
  trackedSeams: number;
  trackedSeamsOnBeat: number;
  loops: number;
  wrapsOnBeat: number;
  /** Loops whose D is a whole number of the true beats within MAX_STRETCH, and their wraps on a true beat. */
  loopsFitting: number;
  wrapsOnBeatFitting: number;
  /** Edits that D and H leave an ending on a true beat or with the track (see endingReachable), and those that end so. */
  editsReachable: number;
  endsOnBeatReachable: number;
  beatF: number[];
  downbeatF: number[];
}

const newTally = (): Tally => ({ tracks: 0, edits: 0, refused: 0, exact: 0, landed: 0, endsOnBeat: 0, endings: {}, seams: 0, seamsOnBeat: 0, trackedSeams: 0, trackedSeamsOnBeat: 0, loops: 0, wrapsOnBeat: 0, loopsFitting: 0, wrapsOnBeatFitting: 0, editsReachable: 0, endsOnBeatReachable: 0, beatF: [], downbeatF: [] });

/** The truth a piece is judged on: its beats, and its downbeats where the score gives them. */
interface Truth {
  beats: number[];
  downbeats?: number[];
}

const seconds = (samples: number) => samples / PLAN_SAMPLE_RATE;
const onBeat = (t: number, beats: ArrayLike<number>) => offBeatSeconds(t, beats) <= ON_BEAT_SECONDS;

/** A loop's wrap: where its last part stops and where its first part starts, source seconds. */
function wrapSides(plan: ClipPlan): [number, number] {
  const last = plan.parts[plan.parts.length - 1];
  return [seconds(last.sourceStart + last.length), seconds(plan.parts[0].sourceStart)];
}

/** The true beat period around `t`: the median gap of the true beats within 10 s of it. */
function truePeriodNear(beats: ArrayLike<number>, t: number): number {
  const gaps: number[] = [];
  for (let i = 1; i < beats.length; i++) if (Math.abs(beats[i] - t) <= 10) gaps.push(beats[i] - beats[i - 1]);
  gaps.sort((a, b) => a - b);
  return gaps[gaps.length >> 1] ?? NaN;
}

/** Whether a loop of `duration` s can be a whole number of the true beats at `start`, played at most MAX_STRETCH faster or slower. */
function loopFits(beats: ArrayLike<number>, start: number, duration: number): boolean {
  const period = truePeriodNear(beats, start + duration / 2);
  const whole = Math.round(duration / period);
  return whole >= 1 && Math.abs(duration / (whole * period) - 1) <= MAX_STRETCH;
}

/**
 * Whether D and H leave the edit an ending on a true beat or with the track: it ends with the
 * track, or the source time D - H after the peak (where the end falls when the peak plays at H and
 * every join after it moves by whole beats) is within MAX_STRETCH of D - H, plus ON_BEAT_SECONDS,
 * of a true beat. Otherwise an ending on a beat needs the peak away from H, which its own
 * contract forbids.
 */
function endingReachable(plan: ClipPlan, peakSeconds: number, duration: number, hit: number, beats: ArrayLike<number>): boolean {
  return plan.ending === 'track_end' || offBeatSeconds(peakSeconds + duration - hit, beats) <= MAX_STRETCH * (duration - hit) + ON_BEAT_SECONDS;
}

function tallySeams(plan: ClipPlan, beats: ArrayLike<number>, tracked: boolean, tally: Tally): void {
  for (const [left, right] of seamSides(plan)) {
    const both = onBeat(left, beats) && onBeat(right, beats);
    tally.seams++;
    if (both) tally.seamsOnBeat++;
    if (tracked) {
      tally.trackedSeams++;
      if (both) tally.trackedSeamsOnBeat++;
    }
  }
}

/** Edits and loops of one piece, judged on `truth`. */
async function judgePiece(name: string, left: Float32Array, right: Float32Array, truthOf: (grid: PlanGrid, analysis: ReturnType<typeof analysePcm>) => Truth, random: () => number, tally: Tally): Promise<void> {
  const mp3 = await encodeGaplessMp3(left, right);
  const index = indexFrames(mp3);
  const analysis = analysePcm(await decodeAll(mp3, index));
  const grid = planGrid(analysis);
  const truth = truthOf(grid, analysis);
  tally.tracks++;
  const beatF = beatFMeasure(grid.beats, truth.beats);
  const tracked = beatF >= TRACKED_BEAT_F;
  tally.beatF.push(beatF);
  if (truth.downbeats) tally.downbeatF.push(beatFMeasure(grid.lines.subarray(0, grid.bars), truth.downbeats));
  for (let k = 0; k < EDITS_PER_TRACK; k++) {
    const duration = DURATIONS[k % DURATIONS.length];
    const hit = Math.round((1 + random() * (duration - 2)) * 100) / 100;
    tally.edits++;
    let clip;
    try {
      clip = await makeClip(mp3, index, analysis, { mode: 'edit', durationSeconds: duration, hitPointSeconds: hit }, { grid });
    } catch (err) {
      if (!isEngineError(err)) throw err;
      tally.refused++;
      editRow({ name, duration, hit, refused: true });
      continue;
    }
    const decoded = await decodeAll(clip.mp3, indexFrames(clip.mp3));
    const exact = decoded.channels[0].length === Math.round(duration * PLAN_SAMPLE_RATE);
    const ends = endsOnBeat(clip.plan, truth.beats);
    if (exact) tally.exact++;
    if (clip.plan.peakInClipSeconds !== null && Math.abs(clip.plan.peakInClipSeconds - hit) <= LANDING_SECONDS) tally.landed++;
    if (ends) tally.endsOnBeat++;
    const reachable = endingReachable(clip.plan, analysis.peakSeconds, duration, hit, truth.beats);
    if (reachable) {
      tally.editsReachable++;
      if (ends) tally.endsOnBeatReachable++;
    }
    tally.endings[clip.plan.ending] = (tally.endings[clip.plan.ending] ?? 0) + 1;
    tallySeams(clip.plan, truth.beats, tracked, tally);
    editRow({ name, duration, hit, exact, onBeat: ends, reachable, plan: clip.plan, beats: truth.beats });
  }
  for (let k = 0; k < LOOPS_PER_TRACK; k++) {
    const duration = LOOP_DURATIONS[Math.floor(random() * LOOP_DURATIONS.length)];
    const plan = planClip(analysis, { mode: 'loop', durationSeconds: duration }, grid);
    tally.loops++;
    const [end, start] = wrapSides(plan);
    const wrapsOnBeat = onBeat(end, truth.beats) && onBeat(start, truth.beats);
    if (wrapsOnBeat) tally.wrapsOnBeat++;
    if (loopFits(truth.beats, start, duration)) {
      tally.loopsFitting++;
      if (wrapsOnBeat) tally.wrapsOnBeatFitting++;
    }
    tallySeams(plan, truth.beats, tracked, tally);
  }
}

const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN);
const share = (n: number, of: number) => `${n}/${of} (${of ? ((100 * n) / of).toFixed(0) : '-'}%)`;

function report(name: string, t: Tally): string {
  const made = t.edits - t.refused;
  const downbeat = t.downbeatF.length ? mean(t.downbeatF).toFixed(3) : 'n/a';
  return [
    `${name}: ${t.tracks} pieces, ${t.edits} edits (${t.refused} refused), ${t.loops} loops`,
    `  seams on a true beat ${share(t.seamsOnBeat, t.seams)}; loop wraps on a true beat ${share(t.wrapsOnBeat, t.loops)}; edits ending on a true beat or with the track ${share(t.endsOnBeat, made)}`,
    `  where the arithmetic allows: loop wraps on a true beat ${share(t.wrapsOnBeatFitting, t.loopsFitting)} of the loops whose D is a whole number of true beats within 1%; ` +
      `edits ending on a true beat or with the track ${share(t.endsOnBeatReachable, t.editsReachable)} of those D and H leave one`,
    `  on the pieces whose beats are tracked right (beat F >= ${TRACKED_BEAT_F}): seams on a true beat ${share(t.trackedSeamsOnBeat, t.trackedSeams)}`,
    `  peak within 25 ms of H ${share(t.landed, made)}; exact length ${share(t.exact, made)}; endings ${JSON.stringify(t.endings)}`,
    `  beat F ${mean(t.beatF).toFixed(3)}, downbeat F ${downbeat} (+-70 ms, mean over pieces)`,
  ].join('\n');
}

/** The demo songs' designed beats: 4/4, bars from 0. */
async function demoSongs(random: () => number): Promise<string> {
  const tally = newTally();
  for (const song of DEMO_SONGS) {
    const design = planTrack(trackSeed(DEFAULT_SEED, song));
    const mix = renderTrack(design);
    const beatSeconds = design.barSeconds / 4;
    const beats = Array.from({ length: Math.ceil(design.durationSeconds / beatSeconds) + 1 }, (_, i) => i * beatSeconds);
    await judgePiece(`demo ${song}`, mix.left, mix.right, () => ({ beats, downbeats: beats.filter((_, i) => i % 4 === 0) }), random, tally);
  }
  return report(`demo songs ${DEMO_SONGS[0]}-${DEMO_SONGS.at(-1)} (designed beats)`, tally);
}

/** Pieces whose scores give every beat and bar line, judged on them; `none` when none is installed. */
async function scoredPieces(pieces: Iterable<{ file: string; truth: { beatSeconds: number[]; barSeconds: number[] }; pcm: Pcm }>, random: () => number, title: string, none: string): Promise<string> {
  const tally = newTally();
  for (const { file, truth, pcm } of pieces) {
    if (pcm.channels[0].length < MIN_RECORDING_SECONDS * pcm.sampleRate) continue;
    await judgePiece(file, pcm.channels[0], pcm.channels[1], () => ({ beats: truth.beatSeconds, downbeats: truth.barSeconds }), random, tally);
  }
  return tally.tracks ? report(title, tally) : none;
}

const modules = (random: () => number) =>
  scoredPieces(trackerModules(), random, 'tracker modules (true beats and bars from their scores)', 'tracker modules: none installed (tecnoballz-data, ffmpeg)');

async function charted(random: () => number): Promise<string> {
  const tally = newTally();
  const names: string[] = [];
  for (const dir of chartSongs()) {
    const pcm = decodeChartSong(dir);
    if (!pcm) continue;
    names.push(path.basename(dir));
    await judgePiece(dir, pcm.channels[0], pcm.channels[1], (_grid, analysis) => ({ beats: chartBeatsOnAudio(dir, analysis) }), random, tally);
  }
  return tally.tracks ? report(`rock and metal songs (${names.length}; true beats from their charts)`, tally) : 'rock and metal songs: none installed (fretsonfire-songs-muldjord, fretsonfire-songs-sectoid, ffmpeg)';
}

/** A set of scored songs (scored-midi.ts) as judged by scoredPieces; `packages` are what it needs besides FluidSynth, its sound font and ffmpeg. */
const scoredSet = (set: ScoreSet, title: string, name: string, packages: string, soundFontOf?: (file: string) => string) => (random: () => number) =>
  scoredPieces(scoredSongs(set, soundFontOf), random, title, `${name}: none installed (${packages}, fluidsynth, fluid-soundfont-gm, ffmpeg)`);

const scored = scoredSet('openmsx', 'songs written as MIDI scores (held out; true beats and bars from their scores)', 'MIDI scores', 'openttd-openmsx');
const scoredOtherFonts = scoredSet(
  'openmsx',
  "the same held-out MIDI scores, each rendered by one of four other General MIDI sound fonts (TimGM6mb, an OPL-3 FM chip's, csound's, MuseScore's), drawn by its name: how far the figures hold when the sound is not FluidR3's",
  'MIDI scores in other sound fonts',
  'openttd-openmsx, timgm6mb-soundfont, opl3-soundfont, csound-soundfont, musescore-general-soundfont-small',
  otherSoundFont,
);
const blupi = scoredSet(
  'planetblupi',
  "Planet Blupi's MIDI scores (not held out: their recordings were among the soundtracks the tempo rules were set on; true beats and bars from their scores)",
  "Planet Blupi's MIDI scores",
  'planetblupi-music-midi',
);
const freedoom = scoredSet(
  'freedoom',
  "Freedoom's level music (a tuning set: rules of the analysis may be set on it; true beats and bars from its MIDI scores)",
  "Freedoom's level music",
  'freedoom',
);

const lmms = (random: () => number) =>
  scoredPieces(
    lmmsSongs(),
    random,
    "songs produced in LMMS (the projects lmms-common ships, rendered by LMMS; held out; true beats and bars from each project's tempo and time signature)",
    'LMMS songs: none installed (lmms, ffmpeg)',
  );

/** The annotated sets, by the names EDITS_SETS picks them by. Each set has its own seeded draws, so picking some leaves their figures as they are. */
const SETS: Record<string, (random: () => number) => Promise<string>> = { demo: demoSongs, modules, charts: charted, scores: scored, 'scores-fonts': scoredOtherFonts, lmms, blupi, freedoom };

/** `npm run bench -- edits`: every annotated set installed, or those EDITS_SETS names (comma-separated). */
export async function benchEdits(): Promise<string> {
  const names = process.env.EDITS_SETS?.split(',') ?? Object.keys(SETS);
  const unknown = names.filter((name) => !(name in SETS));
  if (unknown.length) throw new Error(`EDITS_SETS: no set ${unknown.join(', ')} (sets: ${Object.keys(SETS).join(', ')})`);
  const reports = [machineLine()];
  for (const name of names) reports.push(await SETS[name](seededRandom(SET_SEED).next));
  return reports.join('\n');
}

/**
 * `npm run bench -- edits-all`: recordings without annotations (BENCH_MUSIC names the set), judged
 * on the analysis's own beats: only whether the plan keeps its own grid, not whether the grid is true.
 */
export async function benchEditsAll(): Promise<string> {
  const random = seededRandom(Number(process.env.EDITS_ALL_SEED ?? 9001)).next;
  const music = benchMusic();
  const tally = newTally();
  for (const file of music.files) {
    if (tally.tracks === MAX_RECORDINGS) break;
    const pcm = decodePiece(file);
    if (!pcm || pcm.channels[0].length < MIN_RECORDING_SECONDS * pcm.sampleRate) continue;
    await judgePiece(file, pcm.channels[0], pcm.channels[1], (grid) => ({ beats: Array.from(grid.beats), downbeats: Array.from(grid.lines.subarray(0, grid.bars)) }), random, tally);
  }
  return [machineLine(), report(`${music.name} recordings of 60 s or more (our own beats: self-consistency only)`, tally)].join('\n');
}
