// A plan's audio: each part decoded with a little extra either side, laid at its clip time, and
// joined to its neighbour with an equal-power crossfade centred on the join. Loops wrap: the
// material past the last part's end crossfades into the clip's start, so the end flows into it.
// Any stretch of the clip can be rendered on its own (the splice renders only what it re-encodes).
// This is the clip on the source's own timeline (plan.timelineSamples); a plan with a stretch is
// then played at its speed (clip.ts, varispeed.ts).
import type { RangeDecoder } from './mp3/decode.ts';
import type { FrameIndex } from './mp3/frame-index.ts';
import { CLIP_SAMPLE_RATE, declickPart, stereoAt44100 } from './clip-pcm.ts';
import type { ClipPlan, PlanPart } from './plan/plan.ts';
import { varispeed } from './varispeed.ts';

export type StereoPcm = [Float32Array, Float32Array];

/** The track a plan plays, and the range decoder its parts are decoded with (one per clip: decode.ts). */
export interface PlanSource {
  bytes: Uint8Array;
  index: FrameIndex;
  decoder: RangeDecoder;
}

function crossfadeSamples(part: PlanPart | undefined): number {
  return part ? Math.round((part.crossfadeMs / 1000) * CLIP_SAMPLE_RATE) : 0;
}

/** The source samples [from, to) at 44.1 kHz stereo, zeros outside the track. */
async function sourceAudio({ bytes, index, decoder }: PlanSource, from: number, to: number): Promise<StereoPcm> {
  const rate = index.sampleRate / CLIP_SAMPLE_RATE;
  const total = Math.floor(index.totalSamples / rate);
  const a = Math.max(0, from), b = Math.min(total, to);
  const out: StereoPcm = [new Float32Array(to - from), new Float32Array(to - from)];
  if (b <= a) return out;
  const pcm = await decoder.decode(bytes, index, Math.floor(a * rate), Math.ceil(b * rate));
  const [left, right] = stereoAt44100(pcm, b - a);
  out[0].set(left.subarray(0, b - a), a - from);
  out[1].set(right.subarray(0, b - a), a - from);
  return out;
}

/** Where a part sounds, crossfades included: clip samples [clipFrom, clipFrom + length) from source sourceFrom on. */
interface Span {
  clipFrom: number;
  sourceFrom: number;
  length: number;
  fadeIn: number;
  fadeOut: number;
}

function spanOf(plan: ClipPlan, i: number): Span {
  const part = plan.parts[i];
  const next = i + 1 < plan.parts.length ? plan.parts[i + 1] : plan.mode === 'loop' ? plan.parts[0] : undefined;
  const fadeIn = crossfadeSamples(part), fadeOut = crossfadeSamples(next);
  const lead = Math.floor(fadeIn / 2), overhang = fadeOut - Math.floor(fadeOut / 2);
  return { clipFrom: part.clipStart - lead, sourceFrom: part.sourceStart - lead, length: part.length + lead + overhang, fadeIn, fadeOut };
}

function gainAt(span: Span, j: number): number {
  let gain = 1;
  if (j < span.fadeIn) gain = Math.sin((Math.PI / 2) * ((j + 0.5) / span.fadeIn));
  const fromEnd = span.length - 1 - j;
  if (fromEnd < span.fadeOut) gain *= Math.sin((Math.PI / 2) * ((fromEnd + 0.5) / span.fadeOut));
  return gain;
}

/** Adds the span's audio that falls in out's stretch [from, from + out length), the span moved by `wrap` samples. */
async function addSpan(source: PlanSource, span: Span, wrap: number, out: StereoPcm, from: number): Promise<void> {
  const clipFrom = span.clipFrom + wrap;
  const a = Math.max(from, clipFrom), b = Math.min(from + out[0].length, clipFrom + span.length);
  if (b <= a) return;
  const audio = await sourceAudio(source, span.sourceFrom + a - clipFrom, span.sourceFrom + b - clipFrom);
  for (let at = a; at < b; at++) {
    const gain = gainAt(span, at - clipFrom);
    out[0][at - from] += gain * audio[0][at - a];
    out[1][at - from] += gain * audio[1][at - a];
  }
}

/** The timeline's samples [from, to): zeros outside the clip, de-click ramps at its edges (not for loops). */
export async function renderPlanRange(source: PlanSource, plan: ClipPlan, from: number, to: number): Promise<StereoPcm> {
  const loop = plan.mode === 'loop';
  const samples = plan.timelineSamples;
  const out: StereoPcm = [new Float32Array(to - from), new Float32Array(to - from)];
  const inside = [Math.max(0, from), Math.min(samples, to)];
  if (inside[1] <= inside[0]) return out;
  const view: StereoPcm = [out[0].subarray(inside[0] - from, inside[1] - from), out[1].subarray(inside[0] - from, inside[1] - from)];
  for (let i = 0; i < plan.parts.length; i++) {
    const span = spanOf(plan, i);
    // A loop's spans that run past either end of the clip sound at its other end.
    for (const wrap of loop ? [-samples, 0, samples] : [0]) await addSpan(source, span, wrap, view, inside[0]);
  }
  if (!loop) for (const channel of view) declickPart(channel, inside[0], samples);
  return out;
}

/** The whole clip as sent: its timeline, played at the plan's stretch. */
export async function renderPlanPcm(source: PlanSource, plan: ClipPlan): Promise<StereoPcm> {
  const timeline = await renderPlanRange(source, plan, 0, plan.timelineSamples);
  if (plan.stretch === 1) return timeline;
  const loop = plan.mode === 'loop';
  return [varispeed(timeline[0], plan.samples, loop), varispeed(timeline[1], plan.samples, loop)];
}
