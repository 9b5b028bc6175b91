// What a join costs, and what playing a whole clip at another speed costs: how different the bars either side sound (grid.ts seamCost), a fixed cost per
// join (fewer joins are better), more for a join inside a bar than on a bar line, and more where the
// beats it joins are doubtful. A join is only ever made from a beat of the grid to a beat of it.
import { type PlanGrid, barAt, seamCost } from './grid.ts';
import { MAX_STRETCH } from './plan.ts';

/** Every join costs this much on top of how its bars differ: fewer joins are better. */
export const JOIN_COST = 0.3;
/** A join on a beat inside a bar costs this much more than one on a bar line. */
const MID_BAR_JOIN_COST = 0.3;
/** A join between beats of low confidence costs up to this much more. */
export const DOUBTFUL_JOIN_COST = 1;
/**
 * A clip played at another speed (plan.ts stretch) costs this much, and up to as much again at
 * MAX_STRETCH: it is made whole instead of spliced, and its pitch moves. Less than an ending on
 * no beat, more than a join.
 */
export const STRETCH_COST = 1.5;

/** What the most a stretch may be (MAX_STRETCH either way) costs: an ending or wrap off the beat must cost more. */
export const MAX_STRETCH_COST = 2 * STRETCH_COST;

/** The cost of playing a clip `stretch` times as long as its source timeline. */
export function stretchCost(stretch: number): number {
  return stretch === 1 ? 0 : STRETCH_COST * (1 + Math.abs(stretch - 1) / MAX_STRETCH);
}

/** The cheaper of two candidates (the first on a tie). */
export function cheaper<T extends { cost: number }>(a: T, b: T | undefined): T;
export function cheaper<T extends { cost: number }>(a: T | undefined, b: T | undefined): T | undefined;
export function cheaper<T extends { cost: number }>(a: T | undefined, b: T | undefined): T | undefined {
  return !a || (b && b.cost < a.cost) ? b : a;
}

/** Cost of a join out at bar line `out`, into bar line `into`; undefined when the join would sound wrong. */
export function joinCost(grid: PlanGrid, out: number, into: number): number | undefined {
  const seam = seamCost(grid, out, into);
  if (seam === undefined) return undefined;
  return JOIN_COST + seam + DOUBTFUL_JOIN_COST * (1 - Math.min(grid.lineConfidence[out], grid.lineConfidence[into]));
}

/** Cost of a join that leaves at beat `out` and goes on at beat `into` (beat indices), judged by the bars they lie in. */
export function beatJoinCost(grid: PlanGrid, out: number, into: number): number | undefined {
  const { beats } = grid;
  const onLine = grid.beatInBar[out] === 0;
  // Leaving on a bar line: the bar before it was the last played; mid-bar, the bar it lies in.
  const outLine = barAt(grid, beats[out] + 1e-3) + (onLine ? 0 : 1);
  // A pickup beat before the first bar line goes on into the first bar.
  const seam = seamCost(grid, Math.min(outLine, grid.bars - 1), Math.max(0, barAt(grid, beats[into] + 1e-3)));
  if (seam === undefined) return undefined;
  return JOIN_COST + (onLine ? 0 : MID_BAR_JOIN_COST) + seam + DOUBTFUL_JOIN_COST * (1 - Math.min(grid.beatConfidence[out], grid.beatConfidence[into]));
}
