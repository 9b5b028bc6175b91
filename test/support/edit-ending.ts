// Where an edit ends, as the "done when" judges it: with the track's own ending, or on a
// beat of the source (true beats where a score gives them) within ON_BEAT_SECONDS.
import { PLAN_SAMPLE_RATE, type ClipPlan } from '../../engine/plan/plan.ts';
import { nearestTime } from '../../engine/analysis/beats.ts';

/** A clip end counts as on a beat within this of one. */
export const ON_BEAT_SECONDS = 0.03;

/** The source time (seconds) where the plan's last part stops. */
export function planEndSeconds(plan: ClipPlan): number {
  const last = plan.parts[plan.parts.length - 1];
  return (last.sourceStart + last.length) / PLAN_SAMPLE_RATE;
}

/** Seconds from `t` to the nearest of `beats` (ascending); Infinity when there are none. */
export function offBeatSeconds(t: number, beats: ArrayLike<number>): number {
  const nearest = nearestTime(beats, t);
  return nearest === undefined ? Infinity : Math.abs(nearest - t);
}

/** Whether the plan ends with the track, or within ON_BEAT_SECONDS of one of `beats`. */
export function endsOnBeat(plan: ClipPlan, beats: ArrayLike<number>): boolean {
  return plan.ending === 'track_end' || offBeatSeconds(planEndSeconds(plan), beats) <= ON_BEAT_SECONDS;
}

/** The source times either side of each inner join (the bar line or beat the crossfade is centred on), as [left, right] pairs. */
export function seamSides(plan: ClipPlan): [number, number][] {
  const seconds = (samples: number) => samples / PLAN_SAMPLE_RATE;
  return plan.parts.slice(1).map((part, i) => {
    const before = plan.parts[i];
    const at = part.clipStart + (part.crossfadeMs / 1000 / 2) * PLAN_SAMPLE_RATE;
    return [seconds(before.sourceStart + at - before.clipStart), seconds(part.sourceStart + at - part.clipStart)];
  });
}
