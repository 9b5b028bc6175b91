// Worker task: plan, render and encode one demo track (CPU-bound: runs in its own thread).
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { planTrack } from './plan.ts';
import { renderTrack } from './render.ts';
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';

export async function renderDemoTrack(task: { seed: number }) {
  const mix = renderTrack(planTrack(task.seed));
  const mp3 = await encodeGaplessMp3(mix.left, mix.right);
  return move({ [transferableSymbol]: [mp3.buffer], [valueSymbol]: mp3 } as any);
}
