// The plan of any clip request: the mode's builder, after the checks every mode shares. The
// track's planning context (grid.ts) is worked out once per analysis by the caller that keeps
// the analysis, and passed in.
import type { Analysis } from '../analysis/analyse.ts';
import type { ClipPlan, ClipRequest } from './plan.ts';
import { type PlanGrid, planGrid } from './grid.ts';
import { segmentPlan } from './segment-plan.ts';
import { editPlan } from './edit-plan.ts';
import { loopPlan } from './loop-plan.ts';
import { checkDurationAvailable } from '../segment.ts';

export function planClip(analysis: Analysis, request: ClipRequest, grid: PlanGrid = planGrid(analysis)): ClipPlan {
  checkDurationAvailable(analysis, request.durationSeconds);
  if (request.mode === 'edit') return editPlan(grid, request);
  if (request.mode === 'loop') return loopPlan(grid, request);
  return segmentPlan(analysis, grid, request);
}
