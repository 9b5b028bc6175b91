// A clip: plan it (segment, edit or loop; a thin edit listened to first: listened-plan.ts), then make its audio. Where the source allows, the
// inside of each part is copied from the source's own frames and only the clip's edges and its
// joins are re-encoded (engine/mp3/splice.ts); otherwise the plan is rendered and encoded whole.
import type { Analysis } from './analysis/analyse.ts';
import { encodeGaplessMp3 } from './mp3/encode.ts';
import type { FrameIndex } from './mp3/frame-index.ts';
import { openRangeDecoder } from './mp3/decode.ts';
import { spliceClip, type SplicePart } from './mp3/splice.ts';
import { CLIP_SAMPLE_RATE } from './clip-pcm.ts';
import { listenedPlan } from './listened-plan.ts';
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

export async function makeClip(mp3: Uint8Array, index: FrameIndex, analysis: Analysis, request: ClipRequest, options: { allowSplice?: boolean } = {}): Promise<Clip> {
  const source: PlanSource = { bytes: mp3, index, decoder: await openRangeDecoder() };
  try {
    const plan = await listenedPlan(analysis, request, async () => source);
    const parts = options.allowSplice === false ? undefined : spliceable(plan, index);
    if (parts) {
      const spliced = await spliceClip(mp3, index, parts, plan.samples, (from, to) => renderPlanRange(source, plan, from, to));
      if (spliced) return { mp3: spliced, plan, samples: plan.samples, method: 'splice' };
    }
    const [left, right] = await renderPlanPcm(source, plan);
    return { mp3: await encodeGaplessMp3(left, right), plan, samples: plan.samples, method: 'encode' };
  } finally {
    source.decoder.close();
  }
}
