// A clip: plan it (segment, edit or loop), then make its audio; a thin edit's clip is heard
// before it is sent, and planned again if it misses (listened-plan.ts). Where the source allows,
// the inside of each part is copied from the source's own frames and only the clip's edges and
// its joins are re-encoded (engine/mp3/splice.ts); otherwise the plan is rendered and encoded whole.
import type { Analysis } from './analysis/analyse.ts';
import { encodeGaplessMp3 } from './mp3/encode.ts';
import type { FrameIndex } from './mp3/frame-index.ts';
import { openRangeDecoder } from './mp3/decode.ts';
import { spliceClip, type SplicePart } from './mp3/splice.ts';
import { CLIP_SAMPLE_RATE } from './clip-pcm.ts';
import { heardPeakSeconds, listenedPlan } from './listened-plan.ts';
import type { ClipPlan, ClipRequest } from './plan/plan.ts';
import { renderPlanPcm, renderPlanRange, type PlanSource } from './render-plan.ts';

export interface Clip {
  mp3: Uint8Array;
  plan: ClipPlan;
  /** Samples per channel in the clip (what a gapless decoder returns). */
  samples: number;
  /** 'splice': edges and joins re-encoded, the rest copied; 'encode': the whole clip re-encoded. */
  method: 'splice' | 'encode';
}

/** The splice works in the source's samples, which are the plan's for a 44.1 kHz source (the only kind it takes). */
function spliceable(plan: ClipPlan, index: FrameIndex): SplicePart[] | undefined {
  return index.sampleRate === CLIP_SAMPLE_RATE ? plan.parts : undefined;
}

/** The clip's MP3 for `plan`: where the source allows, spliced (its frames copied, edges and joins re-encoded); else rendered and encoded whole. */
export async function clipAudio(source: PlanSource, plan: ClipPlan, allowSplice = true): Promise<Pick<Clip, 'mp3' | 'method'>> {
  const parts = allowSplice ? spliceable(plan, source.index) : undefined;
  if (parts) {
    const spliced = await spliceClip(source.bytes, source.index, parts, plan.samples, (from, to) => renderPlanRange(source, plan, from, to));
    if (spliced) return { mp3: spliced, method: 'splice' };
  }
  const [left, right] = await renderPlanPcm(source, plan);
  return { mp3: await encodeGaplessMp3(left, right), method: 'encode' };
}

export async function makeClip(mp3: Uint8Array, index: FrameIndex, analysis: Analysis, request: ClipRequest, options: { allowSplice?: boolean } = {}): Promise<Clip> {
  const source: PlanSource = { bytes: mp3, index, decoder: await openRangeDecoder() };
  try {
    // The clips made while listening (listened-plan.ts), by plan: the one sent is not made twice.
    const made = new Map<ClipPlan, Pick<Clip, 'mp3' | 'method'>>();
    const audioOf = async (plan: ClipPlan) => made.get(plan) ?? made.set(plan, await clipAudio(source, plan, options.allowSplice !== false)).get(plan)!;
    const plan = await listenedPlan(analysis, request, async (heard) => heardPeakSeconds((await audioOf(heard)).mp3));
    const { mp3: clip, method } = await audioOf(plan);
    return { mp3: clip, plan, samples: plan.samples, method };
  } finally {
    source.decoder.close();
  }
}
