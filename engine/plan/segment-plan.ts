// Segment mode (the spec's behaviour): one contiguous window, chosen by segment.ts.
import type { Analysis } from '../analysis/analyse.ts';
import { selectSegment } from '../segment.ts';
import { type ClipPlan, type ClipRequest, planOf } from './plan.ts';
import type { PlanGrid } from './grid.ts';
import { endChoice } from './edges.ts';

export function segmentPlan(analysis: Analysis, grid: PlanGrid, request: ClipRequest): ClipPlan {
  const segment = selectSegment(analysis, request.durationSeconds, request.hitPointSeconds);
  const end = Math.min(analysis.durationSeconds, segment.startSeconds + request.durationSeconds);
  return planOf(request, [{ sourceStart: segment.startSeconds, length: request.durationSeconds }], grid, endChoice(grid, end).ending);
}
