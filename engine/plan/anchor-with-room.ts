// Other peaks an edit may anchor on. A plan puts the track's peak at H, but sometimes no plan can
// make it the clip's own peak there: a track that stops on a loud bar a second into its climax (a
// loop-based piece, an excerpt) has nothing after it for the D - H seconds that must follow H, and
// a clip built around a modest climax may hold a bigger entrance from elsewhere. The clip's
// climax is what the caller asked for at H, not which bar of the track it is; so the edit then
// anchors on other entrances: the peak rule's choice among the beats that leave room on both
// sides, then the loudest section starts that do; and when none of those lands, where the clip
// of a plan that missed hears its own peak (heardAnchor).
import type { Analysis } from '../analysis/analyse.ts';
import { frameLevels, peakChoice, WINDOW_BEATS } from '../analysis/peak.ts';
import { frameAtSeconds } from '../analysis/frames.ts';
import { type BarGrid, barLevelAt, sameBar } from './bar-grid.ts';
import { type ClipPeak, LANDING_SECONDS, sourceBeatPeak } from './peak-landing.ts';
import { nearestTime } from '../analysis/beats.ts';
import { type Run, sourceTimeAt } from './plan.ts';

/** Other anchors tried at most (about 1 ms each): a bound on a plan's time (3: p99 +0.5 ms in process). */
const MAX_OTHER_ANCHORS = 2;

/** Indices of the beats with at least `before` seconds before and `after` seconds after them. */
function beatsWithRoom(analysis: Analysis, before: number, after: number): { first: number; last: number } {
  const times = analysis.beatTimesSeconds;
  let first = 0;
  while (first < times.length && times[first] < before) first++;
  let last = times.length - 1;
  while (last >= 0 && times[last] + after > analysis.durationSeconds) last--;
  return { first, last };
}

/** The peak rule's choice among beats [first, last] (its rise weighed over `afterBeats` after each), in seconds; undefined when there are none. */
function peakAmong(analysis: Analysis, first: number, last: number, afterBeats?: number): number | undefined {
  if (first > last) return undefined;
  const frames = Int32Array.from(analysis.beatTimesSeconds, (t) => frameAtSeconds(t, analysis.frameRate));
  const { beat } = peakChoice(frames, frameLevels(analysis.rms), analysis.frameRate, { first, last }, afterBeats);
  return beat >= first && beat <= last ? analysis.beatTimesSeconds[beat] : undefined;
}

/**
 * Analyses (copies) with other peaks, best first: the peak rule's among beats with room for H
 * before and D - H after; when D - H holds fewer beats than the rule's window, its choice with
 * the rise weighed over just those beats (held out with H in the clip's last 3 s: 299 -> 301 of
 * 324, none lost; H from the whole clip unchanged); then section starts with that room, loudest
 * bar first. Not the track's own peak, nor one within the climax's bar of another.
 */
export function otherAnchors(grid: BarGrid, hit: number, rest: number): Analysis[] {
  const { analysis } = grid;
  const { first, last } = beatsWithRoom(analysis, hit, rest);
  const sections = Array.from(analysis.sectionTimesSeconds)
    .filter((t) => t >= hit && t + rest <= analysis.durationSeconds)
    .sort((a, b) => barLevelAt(grid, b) - barLevelAt(grid, a));
  const peaks: number[] = [];
  // With fewer beats after H than the peak rule's window, the clip hears only the first few of a
  // climax: next after the rule's own choice, the entrance that rises most over just those beats.
  const heardBeats = Math.floor(rest / grid.beatSeconds);
  const quickRise = heardBeats < WINDOW_BEATS ? peakAmong(analysis, first, last, Math.max(1, heardBeats)) : undefined;
  for (const t of [peakAmong(analysis, first, last), quickRise, ...sections]) {
    if (t === undefined || [analysis.peakSeconds, ...peaks].some((p) => sameBar(grid, p, t))) continue;
    peaks.push(t);
    if (peaks.length === MAX_OTHER_ANCHORS) break;
  }
  return peaks.map((peakSeconds) => ({ ...analysis, peakSeconds }));
}

/**
 * The source time the clip of `runs` plays where its own analysis puts its peak (`trackedPeak`,
 * seconds of the clip); undefined past the runs' end. Half a frame of slack before each run's
 * start: a beat on a run's first frame is rounded to the frame grid.
 */
export function heardSourceSeconds(analysis: Analysis, runs: Run[], trackedPeak: number): number | undefined {
  return sourceTimeAt(runs, trackedPeak, 0.5 / analysis.frameRate);
}

/** An anchor and the hit point its plans land at on the source's own beats (sourceBeatLanding). */
export interface HeardAnchor {
  analysis: Analysis;
  sourceBeatHit: number;
}

/**
 * The analysis with its peak at `peakSeconds`: the anchor an edit's plans are made around and
 * checked at (the analysis itself when that is already its peak).
 */
export function anchoredAt(analysis: Analysis, peakSeconds: number): Analysis {
  return peakSeconds === analysis.peakSeconds ? analysis : { ...analysis, peakSeconds };
}

/** The anchor a clip's peak makes; undefined when there is none, it plays at H, or it is one of `tried` (source seconds). */
function anchorAt(analysis: Analysis, hit: number, peak: ClipPeak | undefined, tried: number[]): HeardAnchor | undefined {
  if (!peak || Math.abs(peak.clipSeconds - hit) <= LANDING_SECONDS) return undefined;
  const source = peak.sourceSeconds;
  if (tried.some((anchor) => Math.abs(anchor - source) <= LANDING_SECONDS)) return undefined;
  const beat = nearestTime(analysis.beatTimesSeconds, source) ?? source;
  return { analysis: anchoredAt(analysis, source), sourceBeatHit: hit - (source - beat) };
}

/**
 * The anchor the clip of `runs` itself hears, given where its own analysis puts its peak
 * (`trackedPeak`, seconds of the clip, not at H): a plan whose clip hears its peak elsewhere
 * tells where a plan should anchor (a climax as loud as the bar after it, a bigger entrance later
 * in the run through the peak, a quieter one whose rise the clip's lead-in makes clearer), and
 * anchored there, that material plays around H. First where the peak rule puts the peak on the
 * source's own beats as the runs play them; when that is H or an anchor already `tried`, the
 * tracked peak itself, which may sit a fraction of a beat off the source's beats: its plans then
 * land at H on the tracked beats, which on the source's own beats means the source beat nearest
 * the anchor, as far from H as that beat is from the anchor. Undefined when neither is new.
 */
export function heardAnchor(grid: BarGrid, runs: Run[], hit: number, trackedPeak: number, tried: number[]): HeardAnchor | undefined {
  const { analysis } = grid;
  const tracked = heardSourceSeconds(analysis, runs, trackedPeak);
  return anchorAt(analysis, hit, sourceBeatPeak(analysis, runs), tried)
    ?? anchorAt(analysis, hit, tracked === undefined ? undefined : { clipSeconds: trackedPeak, sourceSeconds: tracked }, tried);
}
