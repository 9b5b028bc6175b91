// Worker tasks (analysis-threads.ts): the analysis of audio as the service sees it, encoded to MP3
// and decoded; a demo track's render.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { analysePcm, type Analysis } from '../../engine/analysis/analyse.ts';
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';
import { indexFrames } from '../../engine/mp3/frame-index.ts';
import { decodeAll } from '../../engine/mp3/decode.ts';
import { decodeChartSong } from './chart-songs.ts';
import { planTrack } from '../../catalog/demo/plan.ts';
import { renderTrack } from '../../catalog/demo/render.ts';

async function throughMp3(left: Float32Array, right: Float32Array): Promise<Analysis> {
  const mp3 = await encodeGaplessMp3(left, right);
  return analysePcm(await decodeAll(mp3, indexFrames(mp3)));
}

export function analyseThroughMp3(task: { left: Float32Array; right: Float32Array }): Promise<Analysis> {
  return throughMp3(task.left, task.right);
}

/** A chart song's stems decoded by ffmpeg (chart-songs.ts), then through MP3; undefined when ffmpeg cannot decode them. */
export async function analyseChartSongThroughMp3(task: { dir: string }): Promise<Analysis | undefined> {
  const pcm = decodeChartSong(task.dir);
  return pcm && throughMp3(pcm.channels[0], pcm.channels[1]);
}

/** renderTrack(planTrack(seed, plan), render), its samples moved to the caller. */
export function renderDemoPlan(task: { seed: number; plan: { minSeconds?: number; maxSeconds?: number }; render: { vocals?: boolean } }) {
  const mix = renderTrack(planTrack(task.seed, task.plan), task.render);
  return move({ [transferableSymbol]: [mix.left.buffer, mix.right.buffer], [valueSymbol]: mix } as any);
}
