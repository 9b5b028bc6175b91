// A plan's audio: each part decoded with a little extra either side, laid at its clip time, and
// joined to its neighbour with an equal-power crossfade centred on the join. Loops wrap: the
// material past the last part's end crossfades into the clip's start, so the end flows into it.
import { decodeRange } from './mp3/decode.ts';
import type { FrameIndex } from './mp3/frame-index.ts';
import { CLIP_SAMPLE_RATE, declickPart, stereoAt44100 } from './clip-pcm.ts';
import type { ClipPlan, PlanPart } from './plan/plan.ts';

function crossfadeSamples(part: PlanPart | undefined): number {
  return part ? Math.round((part.crossfadeMs / 1000) * CLIP_SAMPLE_RATE) : 0;
}

/** The source samples [from, to) at 44.1 kHz stereo, zeros outside the track. */
async function sourceAudio(bytes: Uint8Array, index: FrameIndex, from: number, to: number): Promise<[Float32Array, Float32Array]> {
  const rate = index.sampleRate / CLIP_SAMPLE_RATE;
  const total = Math.floor(index.totalSamples / rate);
  const a = Math.max(0, from), b = Math.min(total, to);
  const out: [Float32Array, Float32Array] = [new Float32Array(to - from), new Float32Array(to - from)];
  if (b <= a) return out;
  const pcm = await decodeRange(bytes, index, Math.floor(a * rate), Math.ceil(b * rate));
  const [left, right] = stereoAt44100(pcm, b - a);
  out[0].set(left.subarray(0, b - a), a - from);
  out[1].set(right.subarray(0, b - a), a - from);
  return out;
}

export async function renderPlanPcm(bytes: Uint8Array, index: FrameIndex, plan: ClipPlan): Promise<[Float32Array, Float32Array]> {
  const loop = plan.mode === 'loop';
  const out: [Float32Array, Float32Array] = [new Float32Array(plan.samples), new Float32Array(plan.samples)];
  for (let i = 0; i < plan.parts.length; i++) {
    const part = plan.parts[i];
    const next = i + 1 < plan.parts.length ? plan.parts[i + 1] : loop ? plan.parts[0] : undefined;
    const fadeIn = crossfadeSamples(part), fadeOut = crossfadeSamples(next);
    const lead = Math.floor(fadeIn / 2), overhang = fadeOut - Math.floor(fadeOut / 2);
    const audio = await sourceAudio(bytes, index, part.sourceStart - lead, part.sourceStart + part.length + overhang);
    const span = audio[0].length;
    for (let j = 0; j < span; j++) {
      let gain = 1;
      if (j < fadeIn) gain = Math.sin((Math.PI / 2) * ((j + 0.5) / fadeIn));
      const fromEnd = span - 1 - j;
      if (fromEnd < fadeOut) gain *= Math.sin((Math.PI / 2) * ((fromEnd + 0.5) / fadeOut));
      let at = part.clipStart - lead + j;
      if (loop) at = ((at % plan.samples) + plan.samples) % plan.samples;
      else if (at < 0 || at >= plan.samples) continue;
      out[0][at] += gain * audio[0][j];
      out[1][at] += gain * audio[1][j];
    }
  }
  if (!loop) for (const channel of out) declickPart(channel, 0, plan.samples);
  return out;
}
