// 30 s clips from masters that are not clip masters themselves, a 320 kbps MP3 and a FLAC, each
// made once into its clip master as ingest does (engine/masters), then spliced from it, against
// ffmpeg cutting the same original and encoding the cut at 128 kbps (the reference, same run).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { encodeGaplessMp3 } from '../engine/mp3/encode.ts';
import { indexFrames } from '../engine/mp3/frame-index.ts';
import { decodeAll } from '../engine/mp3/decode.ts';
import { analysePcm } from '../engine/analysis/analyse.ts';
import { makeClip } from '../engine/clip.ts';
import { makeMasters } from '../engine/masters/make-masters.ts';
import type { MasterFormat } from '../engine/masters/master-shape.ts';
import { flacBytes } from '../test/support/master-files.ts';
import { timeTasks } from './timing.ts';

const CLIP_SECONDS = 30;
const LIMITS = { minSeconds: 10, maxSeconds: 20 * 60 };

/** The lines of the report: per master, the time its clip master took, the clip's time, and the ratio to ffmpeg's cut+encode. */
export async function masterClipLines(dir: string, left: Float32Array, right: Float32Array, ffmpeg: boolean): Promise<string[]> {
  const seconds = left.length / 44100;
  const originals: [string, MasterFormat, Uint8Array][] = [
    ['MP3 320 kbps', 'mp3', await encodeGaplessMp3(left, right, { bitrateKbps: 320 })],
    ['FLAC 16-bit', 'flac', flacBytes([left, right], 44100, 16)],
  ];
  const lines: string[] = [];
  for (const [label, format, bytes] of originals) {
    const file = path.join(dir, `master.${format}`);
    fs.writeFileSync(file, bytes);
    let started = performance.now();
    const { clipMaster } = await makeMasters(bytes, format, LIMITS);
    const mastersMs = performance.now() - started;
    const index = indexFrames(clipMaster!);
    const analysis = analysePcm(await decodeAll(clipMaster!, index));
    let start = 0;
    const nextStart = () => (start = (start + 17) % (seconds - CLIP_SECONDS - 1));
    const methods = new Set<string>();
    const out = path.join(dir, 'cut.mp3');
    const tasks: Record<string, () => unknown> = {
      clip: async () => methods.add((await makeClip(clipMaster!, index, analysis, { mode: 'segment', durationSeconds: CLIP_SECONDS, hitPointSeconds: (nextStart() % 25) + 2 })).method),
    };
    if (ffmpeg) {
      tasks.ffmpeg = () => {
        const result = spawnSync('ffmpeg', ['-loglevel', 'error', '-y', '-ss', String(nextStart()), '-t', String(CLIP_SECONDS), '-i', file, '-c:a', 'libmp3lame', '-b:a', '128k', out]);
        if (result.status !== 0) throw new Error(String(result.stderr));
      };
    }
    started = performance.now();
    const timings = await timeTasks(tasks, 8);
    const clip = timings.get('clip')!;
    const reference = timings.get('ffmpeg');
    lines.push(
      `${label} master (${seconds.toFixed(0)} s): clip master made once in ${mastersMs.toFixed(0)} ms; 30 s clip from it mean ${clip.meanMs.toFixed(1)} ms, p50 ${clip.p50Ms.toFixed(1)} ms (${[...methods].join(', ')})` +
        (reference ? `; ffmpeg cut+encode of the ${format.toUpperCase()} mean ${reference.meanMs.toFixed(1)} ms; ratio ${(clip.meanMs / reference.meanMs).toFixed(3)} (target <= 0.1)` : ''),
    );
  }
  return lines;
}
