// How different each join of an edit sounds, as the seam rule judges it: the novelty
// (bar-features.ts barDistance) between the last bar a part plays and the first whole bar the
// next part plays, against the track's own bar lines (grid.ts: seamLimit is their 90th
// percentile, relaxedSeamLimit their most abrupt one).
import type { Analysis } from '../../engine/analysis/analyse.ts';
import { barDistance } from '../../engine/analysis/bar-features.ts';
import { barAt, planGrid } from '../../engine/plan/grid.ts';
import { PLAN_SAMPLE_RATE, type PlanPart } from '../../engine/plan/plan.ts';

/** Seconds before a part's end (and a bar after its start) that fall inside the bar it ends (first plays whole). */
const INSIDE_BAR_SECONDS = 0.05;

const seconds = (samples: number) => samples / PLAN_SAMPLE_RATE;

/** A novelty equal to a limit, give or take rounding, is within it. */
const NOVELTY_SLACK = 1e-6;

/** Whether a join's `novelty` is within `limit` (a grid's seamLimit or relaxedSeamLimit). */
export function withinNovelty(novelty: number, limit: number): boolean {
  return novelty <= limit + NOVELTY_SLACK;
}

/** Each join's novelty, in clip order (parts.length - 1 of them). */
export function joinNovelties(analysis: Analysis, parts: PlanPart[]): number[] {
  const grid = planGrid(analysis);
  return parts.slice(1).map((part, i) => {
    const before = parts[i];
    const out = barAt(grid, seconds(before.sourceStart + before.length) - INSIDE_BAR_SECONDS);
    // An inner part starts on a bar line, half a crossfade early: the bar just after its start is the first it plays.
    const into = barAt(grid, seconds(part.sourceStart) + INSIDE_BAR_SECONDS);
    return barDistance(grid.barFeatures, out, into);
  });
}
