// The slow, independent audio work of a test file (a piece encoded to MP3, decoded and analysed; a
// demo track rendered) on a thread per CPU, so that a file's pieces are worked on side by side: the
// same functions as in the test's own thread (analysis-task.ts), the same results. Call
// closeAnalysisThreads in `after`.
import os from 'node:os';
import { Piscina } from 'piscina';
import type { Analysis } from '../../engine/analysis/analyse.ts';
import type { Pcm } from '../../engine/mp3/decode.ts';
import type { Mix } from '../../catalog/demo/instruments.ts';

let pool: Piscina | undefined;

function threads(): Piscina {
  const count = os.availableParallelism();
  return (pool ??= new Piscina({ filename: new URL('./analysis-worker.mjs', import.meta.url).href, minThreads: count, maxThreads: count, idleTimeout: 1000, concurrentTasksPerWorker: 1 }));
}

/** The analysis of `pcm` encoded to MP3 and decoded (as encodeGaplessMp3, decodeAll and analysePcm give it), on a worker thread. */
export function analysisThroughMp3(pcm: Pcm): Promise<Analysis> {
  return threads().run({ left: pcm.channels[0], right: pcm.channels[1] }, { name: 'analyseThroughMp3' });
}

/** The analysis of a chart song (decodeChartSong) through MP3, on a worker thread; undefined when ffmpeg cannot decode it. */
export function chartSongAnalysisThroughMp3(dir: string): Promise<Analysis | undefined> {
  return threads().run({ dir }, { name: 'analyseChartSongThroughMp3' });
}

/** renderTrack(planTrack(seed, plan), render) on a worker thread. */
export function renderInThread(seed: number, plan: { minSeconds?: number; maxSeconds?: number } = {}, render: { vocals?: boolean } = {}): Promise<Mix> {
  return threads().run({ seed, plan, render }, { name: 'renderDemoPlan' });
}

export async function closeAnalysisThreads(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}
