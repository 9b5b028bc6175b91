// The plan of any clip request: the mode's builder, after the checks every mode shares.
import type { Analysis } from '../analysis/analyse.ts';
import { EngineError } from '../errors.ts';
import type { ClipPlan, ClipRequest } from './plan.ts';
import { segmentPlan } from './segment-plan.ts';
import { editPlan } from './edit-plan.ts';
import { loopPlan } from './loop-plan.ts';
import { MIN_CLIP_SECONDS } from '../segment.ts';

export function planClip(analysis: Analysis, request: ClipRequest): ClipPlan {
  if (request.durationSeconds > analysis.durationSeconds) {
    const max = Math.floor(analysis.durationSeconds * 1000) / 1000;
    throw new EngineError('duration_unavailable', `duration_seconds ${request.durationSeconds} is longer than the track (${max} s); choose ${MIN_CLIP_SECONDS} to ${max}`, { min: MIN_CLIP_SECONDS, max });
  }
  if (request.mode === 'edit') return editPlan(analysis, request);
  if (request.mode === 'loop') return loopPlan(analysis, request);
  return segmentPlan(analysis, request);
}
