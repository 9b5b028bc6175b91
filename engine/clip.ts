// A clip: plan it (segment, edit or loop), then make its audio. Where the source allows,
// the inside of each part is copied from the source's own frames and only the clip's edges and
// its joins are re-encoded (engine/mp3/splice.ts); otherwise the plan is rendered and encoded whole.
import type { Analysis } from './analysis/analyse.ts';
import { encodeGaplessMp3 } from './mp3/encode.ts';
import type { FrameIndex } from './mp3/frame-index.ts';
import { openRangeDecoder } from './mp3/decode.ts';
import { spliceClip, type SplicePart } from './mp3/splice.ts';
import { CLIP_SAMPLE_RATE } from './clip-pcm.ts';
import { planClip } from './plan/plan-clip.ts';
import type { PlanGrid } from './plan/grid.ts';
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

/** The splice copies the source's own frames: only for a 44.1 kHz source (the plan's samples are its samples) and a clip played at the source's speed. */
function spliceable(plan: ClipPlan, index: FrameIndex): SplicePart[] | undefined {
  return index.sampleRate === CLIP_SAMPLE_RATE && plan.stretch === 1 ? plan.parts : undefined;
}

/** A clip's MP3, and how it was made: spliced (edges and joins re-encoded, the rest copied) or encoded whole. */
export type ClipAudio = Pick<Clip, 'mp3' | 'method'>;

/** The clip's MP3 for `plan`: where the source allows, spliced; else rendered and encoded whole. */
export async function clipAudio(source: PlanSource, plan: ClipPlan, allowSplice = true): Promise<ClipAudio> {
  const parts = allowSplice ? spliceable(plan, source.index) : undefined;
  if (parts) {
    const spliced = await spliceClip(source.bytes, source.index, parts, plan.samples, (from, to) => renderPlanRange(source, plan, from, to));
    if (spliced) return { mp3: spliced, method: 'splice' };
  }
  const [left, right] = await renderPlanPcm(source, plan);
  return { mp3: await encodeGaplessMp3(left, right), method: 'encode' };
}

export async function makeClip(mp3: Uint8Array, index: FrameIndex, analysis: Analysis, request: ClipRequest, options: { allowSplice?: boolean; grid?: PlanGrid } = {}): Promise<Clip> {
  const plan = planClip(analysis, request, options.grid);
  const source: PlanSource = { bytes: mp3, index, decoder: await openRangeDecoder() };
  try {
    return { ...(await clipAudio(source, plan, options.allowSplice !== false)), plan, samples: plan.samples };
  } finally {
    source.decoder.close();
  }
}
