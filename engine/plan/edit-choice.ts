// What every edit plan is weighed by: the cost of a join, the shortest part, the climax's bars, a
// run through the peak that cuts the peak rule's window short, and the cheapest few of a kind.
import type { Ending, Run } from './plan.ts';
import type { BarGrid } from './bar-grid.ts';
import { ON_LINE_SECONDS } from './edges.ts';
import { WINDOW_BEATS } from '../analysis/peak.ts';

/** Every join costs this much on top of how its bars differ: fewer joins are better. */
export const JOIN_COST = 0.3;
/** No part shorter than this (a beat at 120 BPM): shorter ones would sound like stutters. */
export const MIN_PART_SECONDS = 0.5;
/** Bars from the peak's that may never play before it (the climax must first sound at H). */
export const CLIMAX_BARS = 4;

export interface Choice {
  cost: number;
  runs: Run[];
  ending: Ending;
}

/**
 * A clip whose run through the peak starts or stops within the peak rule's window (WINDOW_BEATS
 * either side) changes what that rule compares, and its own peak moves by a beat or more; so a
 * run that keeps the window whole is preferred by this much on each side.
 */
const PEAK_WINDOW_COST = 1;

/** The peak rule's window on either side of a beat (WINDOW_BEATS), in seconds at the track's tempo. */
export function peakWindowSeconds(grid: BarGrid): number {
  return WINDOW_BEATS * grid.beatSeconds;
}

/** Whether a clip with `rest` seconds after H ends inside the peak rule's window after it: its climax is heard only that long. */
export function endsInPeakWindow(grid: BarGrid, rest: number): boolean {
  return rest < peakWindowSeconds(grid);
}

/** PEAK_WINDOW_COST when `seconds` of the run through the peak on one side are fewer than the peak rule's window. */
export function peakWindowCost(grid: BarGrid, seconds: number): number {
  return seconds < peakWindowSeconds(grid) - ON_LINE_SECONDS ? PEAK_WINDOW_COST : 0;
}

/** Candidates kept of each side of the peak: their pairs are checked for where the clip's own peak falls. */
export const CANDIDATES_PER_SIDE = 6;
/** Lead-ins, and endings of each kind, a wider search pairs when none of the first checks lands (anchored-edit.ts). */
export const WIDE_PER_SIDE = 24;

/**
 * Where `item` goes among `kept` (ordered by `compare`) so that equals keep their order, as a
 * stable sort would: after every item it does not come strictly before. `kept.length` when last.
 */
function placeOf<T>(kept: T[], item: T, compare: (a: T, b: T) => number): number {
  let at = kept.length;
  while (at > 0 && compare(item, kept[at - 1]) < 0) at--;
  return at;
}

/** Puts `item` in its place among `kept` (ordered by `compare`, at most `count` long) when it is among the first `count`. */
export function keepFewest<T>(kept: T[], item: T, count: number, compare: (a: T, b: T) => number): void {
  const at = placeOf(kept, item, compare);
  if (at >= count) return;
  kept.splice(at, 0, item);
  if (kept.length > count) kept.pop();
}

/**
 * The first `count` of `items` in the order `compare` gives (equals keep their order, as a stable
 * sort would), in one pass: `items` may hold thousands and only a few are kept. `items` is not reordered.
 */
export function fewest<T>(items: T[], count: number, compare: (a: T, b: T) => number): T[] {
  const kept: T[] = [];
  for (const item of items) keepFewest(kept, item, count, compare);
  return kept;
}

/** The `count` cheapest of `found` (CANDIDATES_PER_SIDE unless told), cheapest first. */
export function cheapest<T extends { cost: number }>(found: T[], count = CANDIDATES_PER_SIDE): T[] {
  return fewest(found, count, byCost);
}

/** Cheaper first. */
export function byCost(a: { cost: number }, b: { cost: number }): number {
  return a.cost - b.cost;
}
