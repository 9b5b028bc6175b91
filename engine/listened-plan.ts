// An edit whose check foresees its peak at H only thinly is listened to before it is sent: its
// clip is made, decoded and analysed as the caller's decoder and analysis will (the peak alone:
// analyse.ts peakSecondsOfPcm), and where it hears its peak off H, the edit is planned again
// knowing it (peak-landing.ts withHeardClips), up to LISTENED_PLANS plans. The check lays the
// clip out from the source's envelopes at the nearest of four onset phases and models each
// join's onset; the clip has the exact ones, and a thin landing is where the difference decides
// (third held-out set, 380 edits: the check's thin landings held 88 of 94).
import type { Analysis } from './analysis/analyse.ts';
import { peakSecondsOfPcm } from './analysis/analyse.ts';
import { decodeAll } from './mp3/decode.ts';
import { indexFrames } from './mp3/frame-index.ts';
import { type HeardClip, LANDING_SECONDS, heardClip } from './plan/peak-landing.ts';
import { planClip } from './plan/plan-clip.ts';
import type { ClipPlan, ClipRequest } from './plan/plan.ts';

/**
 * Plans of one edit made and heard, at most: each costs the clip's decode and a rhythm analysis
 * (`npm run bench -- engine`: ~100 ms for 30 s on the 2-core machine), and each after the first
 * its plan and its clip's making too; most thin landings that miss land on the first or second
 * plan made knowing it.
 */
const LISTENED_PLANS = 3;

/** Where the analysis of the clip `mp3` hears its peak, clip seconds. */
export async function heardPeakSeconds(mp3: Uint8Array): Promise<number> {
  return peakSecondsOfPcm(await decodeAll(mp3, indexFrames(mp3)));
}

const samePlan = (a: ClipPlan, b: ClipPlan) => a.parts.length === b.parts.length && a.parts.every((part, i) => part.sourceStart === b.parts[i].sourceStart && part.length === b.parts[i].length);

/**
 * The request's plan (plan-clip.ts); for an edit with H whose landing is thin, the first of up to
 * LISTENED_PLANS plans whose clip `hear` hears its peak (clip seconds) within LANDING_SECONDS of
 * H, each planned knowing the clips heard before it. When none does (or the next plan is one
 * already heard, or the check sees none landing), the one heard nearest H, its landing `miss`:
 * that is where its clip puts the peak. Plans are returned as planned (a listened one is the
 * object `hear` was given), so a caller can keep the clip it made for it.
 */
export async function listenedPlan(analysis: Analysis, request: ClipRequest, hear: (plan: ClipPlan) => Promise<number>): Promise<ClipPlan> {
  let plan = planClip(analysis, request);
  const hit = request.hitPointSeconds;
  if (hit === undefined || plan.hitPointLanding !== 'thin') return plan;
  const heard: HeardClip[] = [];
  const tried: ClipPlan[] = [];
  let nearest: { plan: ClipPlan; offSeconds: number } | undefined;
  for (;;) {
    const heardSeconds = await hear(plan);
    const offSeconds = Math.abs(heardSeconds - hit);
    if (offSeconds <= LANDING_SECONDS) return plan;
    heard.push(heardClip(analysis, plan.runs, hit, heardSeconds));
    tried.push(plan);
    if (!nearest || offSeconds < nearest.offSeconds) nearest = { plan, offSeconds };
    if (tried.length === LISTENED_PLANS) break;
    const next = planClip(analysis, request, heard);
    if (next.hitPointLanding === 'miss' || tried.some((old) => samePlan(old, next))) break;
    plan = next;
  }
  nearest.plan.hitPointLanding = 'miss';
  return nearest.plan;
}
