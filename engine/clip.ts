// A clip: plan it (segment, edit or loop), then make its audio. A one-part plan is spliced from
// the source's own frames where it can be (only the edges re-encoded); a plan of several parts,
// and any source the splice cannot take, is rendered to PCM and encoded whole.
import type { Analysis } from './analysis/analyse.ts';
import { decodeRange } from './mp3/decode.ts';
import { encodeGaplessMp3 } from './mp3/encode.ts';
import type { FrameIndex } from './mp3/frame-index.ts';
import { spliceClip } from './mp3/splice.ts';
import { CLIP_SAMPLE_RATE, declickPart, stereoAt44100 } from './clip-pcm.ts';
import { planClip } from './plan/plan-clip.ts';
import type { ClipPlan, ClipRequest } from './plan/plan.ts';
import { renderPlanPcm } from './render-plan.ts';

export interface Clip {
  mp3: Uint8Array;
  plan: ClipPlan;
  /** Samples per channel in the clip (what a gapless decoder returns). */
  samples: number;
  /** 'splice': edges re-encoded, middle frames copied; 'encode': the whole clip re-encoded. */
  method: 'splice' | 'encode';
}

/** One contiguous window of the source, spliced when possible. */
async function windowClip(mp3: Uint8Array, index: FrameIndex, plan: ClipPlan, allowSplice: boolean): Promise<Clip> {
  const sourceRate = index.sampleRate;
  const startSample = Math.round((plan.parts[0].sourceStart * sourceRate) / CLIP_SAMPLE_RATE);
  const sourceLength = Math.min(index.totalSamples - startSample, Math.round((plan.samples * sourceRate) / CLIP_SAMPLE_RATE));
  const samples = Math.min(plan.samples, Math.round((sourceLength * CLIP_SAMPLE_RATE) / sourceRate));
  if (allowSplice) {
    const spliced = await spliceClip(mp3, index, startSample, samples, (part, offset) => declickPart(part, offset, samples));
    if (spliced) return { mp3: spliced, plan, samples, method: 'splice' };
  }
  const pcm = await decodeRange(mp3, index, startSample, startSample + sourceLength);
  const [left, right] = stereoAt44100(pcm, samples);
  declickPart(left, 0, samples);
  declickPart(right, 0, samples);
  return { mp3: await encodeGaplessMp3(left, right), plan, samples, method: 'encode' };
}

export async function makeClip(mp3: Uint8Array, index: FrameIndex, analysis: Analysis, request: ClipRequest, options: { allowSplice?: boolean } = {}): Promise<Clip> {
  const plan = planClip(analysis, request);
  if (plan.parts.length === 1 && plan.mode !== 'loop') return windowClip(mp3, index, plan, options.allowSplice !== false);
  const [left, right] = await renderPlanPcm(mp3, index, plan);
  return { mp3: await encodeGaplessMp3(left, right), plan, samples: plan.samples, method: 'encode' };
}
