// Other peaks an edit may anchor on. A plan puts the track's peak at H, but sometimes no plan can
// make it the clip's own peak there: a track that stops on a loud bar a second into its climax (a
// loop-based piece, an excerpt) has nothing after it for the D - H seconds that must follow H, and
// a clip built around a modest climax may hold a bigger entrance from elsewhere. The clip's
// climax is what the caller asked for at H, not which bar of the track it is; so the edit then
// anchors on other entrances: the peak rule's choice among the beats that leave room on both
// sides, then the loudest section starts that do.
import type { Analysis } from '../analysis/analyse.ts';
import { peakChoice } from '../analysis/peak.ts';
import { frameAtSeconds } from '../analysis/spectrogram.ts';
import { type BarGrid, barAt } from './bar-grid.ts';

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

/** The peak rule's choice among beats [first, last], in seconds; undefined when there are none. */
function peakAmong(analysis: Analysis, first: number, last: number): number | undefined {
  if (first > last) return undefined;
  const frames = Int32Array.from(analysis.beatTimesSeconds, (t) => frameAtSeconds(t, analysis.frameRate));
  const { beat } = peakChoice(frames, analysis.rms, analysis.frameRate, { first, last });
  return beat >= first && beat <= last ? analysis.beatTimesSeconds[beat] : undefined;
}

/**
 * Analyses (copies) with other peaks, best first: the peak rule's among beats with room for H
 * before and D - H after, then section starts with that room, loudest bar first. Not the
 * track's own peak, nor one within the climax's bar of another.
 */
export function otherAnchors(grid: BarGrid, hit: number, rest: number): Analysis[] {
  const { analysis } = grid;
  const { first, last } = beatsWithRoom(analysis, hit, rest);
  const sections = Array.from(analysis.sectionTimesSeconds)
    .filter((t) => t >= hit && t + rest <= analysis.durationSeconds)
    .sort((a, b) => grid.barRms[barAt(grid, b)] - grid.barRms[barAt(grid, a)]);
  const peaks: number[] = [];
  for (const t of [peakAmong(analysis, first, last), ...sections]) {
    if (t === undefined || [analysis.peakSeconds, ...peaks].some((p) => barAt(grid, p) === barAt(grid, t))) continue;
    peaks.push(t);
    if (peaks.length === MAX_OTHER_ANCHORS) break;
  }
  return peaks.map((peakSeconds) => ({ ...analysis, peakSeconds }));
}
