// The plan of any clip request: the mode's builder, after the checks every mode shares.
import type { Analysis } from '../analysis/analyse.ts';
import type { ClipPlan, ClipRequest } from './plan.ts';
import { segmentPlan } from './segment-plan.ts';
import { editPlan } from './edit-plan.ts';
import { loopPlan } from './loop-plan.ts';
import { checkDurationAvailable } from '../segment.ts';
import type { HeardClip } from './peak-landing.ts';

/** `heard`: clips of an edit's earlier plans, made and heard off H (engine/listened-plan.ts). */
export function planClip(analysis: Analysis, request: ClipRequest, heard: readonly HeardClip[] = []): ClipPlan {
  checkDurationAvailable(analysis, request.durationSeconds);
  if (request.mode === 'edit') return editPlan(analysis, request, heard);
  if (request.mode === 'loop') return loopPlan(analysis, request);
  return segmentPlan(analysis, request);
}
