// Engine speed: decode (x realtime), analysis (ms per minute of audio), encode (x realtime, each
// candidate encoder), and end-to-end 30 s clips from a 3.5-minute track with the analysis cached,
// against `ffmpeg -ss S -t 30 -i track.mp3 -c:a libmp3lame -b:a 128k` (cut + re-encode, no
// analysis) timed in the same run when ffmpeg is installed; then 30 s clips from a 320 kbps MP3
// master and a FLAC master, spliced from their clip masters, against ffmpeg cutting those masters.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { indexFrames } from '../engine/mp3/frame-index.ts';
import { decodeAll } from '../engine/mp3/decode.ts';
import { encodeGaplessMp3 } from '../engine/mp3/encode.ts';
import { lameJs, wasmLame } from '../engine/mp3/encoders.ts';
import { analysePcm } from '../engine/analysis/analyse.ts';
import { serialiseAnalysis } from '../engine/analysis/serialise.ts';
import { makeClip } from '../engine/clip.ts';
import { planClip } from '../engine/plan/plan-clip.ts';
import { planGrid } from '../engine/plan/grid.ts';
import { createEnginePool } from '../engine/pool.ts';
import { climaxPiece } from '../test/support/synth.ts';
import { planTrack } from '../catalog/demo/plan.ts';
import { renderTrack } from '../catalog/demo/render.ts';
import { trackSeed, DEFAULT_SEED } from '../catalog/demo/generate.ts';
import { timeTasks } from './timing.ts';
import { firstPlansLines } from './first-plans.ts';
import { median } from './rounds.ts';
import { machineLine } from './machine.ts';
import { masterClipLines } from './master-clips.ts';

const TRACK_SECONDS = 210;
const CLIP_SECONDS = 30;
/** Idle time between clips in the idle-gap timing: a lightly loaded API's worker (the decoder is reset in the gaps). */
const IDLE_GAP_MS = 20;
const IDLE_GAP_RUNS = 20;
/** ENGINE_PARTS=masters runs only the clips from masters of other formats (master-clips.ts). */
const PARTS = new Set((process.env.ENGINE_PARTS ?? 'all,masters').split(','));

/** Median time of `make` when each call follows IDLE_GAP_MS of idle time (tinybench runs them back to back). */
async function p50WithIdleGaps(make: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < IDLE_GAP_RUNS; i++) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_GAP_MS));
    const start = performance.now();
    await make();
    times.push(performance.now() - start);
  }
  return median(times, (ms) => ms);
}

/** The demo catalog's song at `position`, rendered, encoded and analysed as the catalog does. */
async function analysedDemoSong(position: number) {
  const song = renderTrack(planTrack(trackSeed(DEFAULT_SEED, position)));
  const mp3 = await encodeGaplessMp3(song.left, song.right);
  const index = indexFrames(mp3);
  return { mp3, index, analysis: analysePcm(await decodeAll(mp3, index)) };
}

function hasFfmpeg(): boolean {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function benchEngine(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-bench-engine-'));
  const mono = climaxPiece(126, TRACK_SECONDS, 120);
  try {
    const lines = PARTS.has('all') ? await engineLines(dir, mono) : [machineLine()];
    if (PARTS.has('masters')) lines.push(...(await masterClipLines(dir, mono, mono, hasFfmpeg())));
    return lines.join('\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function engineLines(dir: string, mono: Float32Array): Promise<string[]> {
  const file = path.join(dir, 'track.mp3');
  const track = await encodeGaplessMp3(mono, mono);
  fs.writeFileSync(file, track);
  const index = indexFrames(track);
  const pcm = await decodeAll(track, index);
  const analysis = analysePcm(pcm);
  const analysisBytes = serialiseAnalysis(analysis);
  const left = pcm.channels[0].subarray(0, CLIP_SECONDS * 44100);
  const right = pcm.channels[1].subarray(0, CLIP_SECONDS * 44100);
  // Edits are timed on a rendered demo song (verses, choruses, a build, a climax, an outro): on
  // it an edit with a hit point is usually several parts, where the synthetic piece needs one.
  const { mp3: songMp3, index: songIndex, analysis: songAnalysis } = await analysedDemoSong(0);
  const editParts: number[] = [];
  // The planning context is kept with the analysis, as the worker keeps it.
  const songGrid = planGrid(songAnalysis);
  const pool = createEnginePool();
  const ffmpeg = hasFfmpeg();
  const out = path.join(dir, 'cut.mp3');
  let start = 0;
  // Different segments each run, as real traffic asks (no result reuse anywhere).
  const nextStart = () => (start = (start + 17) % (TRACK_SECONDS - CLIP_SECONDS - 1));
  /** A 30 s clip of the demo song with a new hit point each call. */
  const songClip = (mode: 'segment' | 'edit') => makeClip(songMp3, songIndex, songAnalysis, { mode, durationSeconds: CLIP_SECONDS, hitPointSeconds: (nextStart() % 25) + 2 }, { grid: songGrid });
  try {
    const tasks: Record<string, () => unknown> = {
      decode: () => decodeAll(track, index),
      analyse: () => analysePcm(pcm),
      [`encode ${wasmLame.name}`]: () => encodeGaplessMp3(left, right, { encoder: wasmLame }),
      [`encode ${lameJs.name}`]: () => encodeGaplessMp3(left, right, { encoder: lameJs }),
      'clip 30 s, in-process (analysis cached)': () => makeClip(track, index, analysis, { mode: 'segment', durationSeconds: CLIP_SECONDS, hitPointSeconds: (nextStart() % 25) + 2 }),
      'clip 30 s, in-process, full re-encode': () => makeClip(track, index, analysis, { mode: 'segment', durationSeconds: CLIP_SECONDS, hitPointSeconds: (nextStart() % 25) + 2 }, { allowSplice: false }),
      'edit 30 s with H, in-process': async () => {
        const clip = await songClip('edit');
        editParts.push(clip.plan.parts.length);
      },
      'segment 30 s with H on the same song': () => songClip('segment'),
      'loop 16 s, in-process': () => makeClip(songMp3, songIndex, songAnalysis, { mode: 'loop', durationSeconds: 16 + (nextStart() % 5) }, { grid: songGrid }),
      'plan of an edit 30 s with H': () => planClip(songAnalysis, { mode: 'edit', durationSeconds: CLIP_SECONDS, hitPointSeconds: (nextStart() % 25) + 2 }, songGrid),
      'clip 30 s, through the worker pool': () => pool.clip({ path: file, analysis: analysisBytes, durationSeconds: CLIP_SECONDS, hitPointSeconds: (nextStart() % 25) + 2 }),
    };
    if (ffmpeg) {
      tasks['ffmpeg cut+encode 30 s (reference)'] = () => {
        const result = spawnSync('ffmpeg', ['-loglevel', 'error', '-y', '-ss', String(nextStart()), '-t', String(CLIP_SECONDS), '-i', file, '-c:a', 'libmp3lame', '-b:a', '128k', out]);
        if (result.status !== 0) throw new Error(String(result.stderr));
      };
    }
    const timings = await timeTasks(tasks, 8);
    const t = (name: string) => timings.get(name)!;
    const minutes = TRACK_SECONDS / 60;
    const lines = [
      machineLine(),
      `track: ${TRACK_SECONDS} s rendered, 128 kbps CBR stereo; clips of ${CLIP_SECONDS} s with a hit point; tinybench, 8 runs each (mean / p50)`,
      `decode full track          ${t('decode').meanMs.toFixed(1)} ms  = ${(TRACK_SECONDS / (t('decode').meanMs / 1000)).toFixed(0)}x realtime`,
      `analysis (from PCM)        ${t('analyse').meanMs.toFixed(1)} ms  = ${(t('analyse').meanMs / minutes).toFixed(1)} ms per minute of audio (${TRACK_SECONDS} s track: ${(t('analyse').meanMs / 1000).toFixed(2)} s, target <= 0.35 s)`,
    ];
    for (const encoder of [wasmLame, lameJs]) {
      const timing = t(`encode ${encoder.name}`);
      lines.push(`encode 30 s, ${encoder.name.padEnd(38)} ${timing.meanMs.toFixed(1)} ms = ${(CLIP_SECONDS / (timing.meanMs / 1000)).toFixed(1)}x realtime`);
    }
    const inProcess = t('clip 30 s, in-process (analysis cached)');
    const viaPool = t('clip 30 s, through the worker pool');
    const reencode = t('clip 30 s, in-process, full re-encode');
    lines.push(`clip 30 s in-process        mean ${inProcess.meanMs.toFixed(1)} ms, p50 ${inProcess.p50Ms.toFixed(1)} ms (splice: edges re-encoded, middle frames copied)`);
    lines.push(`clip 30 s full re-encode    mean ${reencode.meanMs.toFixed(1)} ms, p50 ${reencode.p50Ms.toFixed(1)} ms (fallback path, e.g. sources not 128 kbps CBR 44.1 kHz)`);
    lines.push(`clip 30 s via worker pool   mean ${viaPool.meanMs.toFixed(1)} ms, p50 ${viaPool.p50Ms.toFixed(1)} ms`);
    const edit = t('edit 30 s with H, in-process');
    const loop = t('loop 16 s, in-process');
    const plan = t('plan of an edit 30 s with H');
    const songSegment = t('segment 30 s with H on the same song');
    const parts = editParts.reduce((a, b) => a + b, 0) / Math.max(1, editParts.length);
    lines.push(`demo song ${songAnalysis.durationSeconds.toFixed(0)} s: segment 30 s with H mean ${songSegment.meanMs.toFixed(1)} ms, p50 ${songSegment.p50Ms.toFixed(1)} ms`);
    const segmentAfterIdle = await p50WithIdleGaps(() => songClip('segment'));
    const editAfterIdle = await p50WithIdleGaps(() => songClip('edit'));
    lines.push(`the same with ${IDLE_GAP_MS} ms idle before each clip (the decoder reset in the gap): segment p50 ${segmentAfterIdle.toFixed(1)} ms, edit p50 ${editAfterIdle.toFixed(1)} ms`);
    lines.push(`edit 30 s with H in-process mean ${edit.meanMs.toFixed(1)} ms, p50 ${edit.p50Ms.toFixed(1)} ms (${parts.toFixed(1)} parts on average; ${(edit.p50Ms / songSegment.p50Ms).toFixed(1)}x the segment clip; target <= 100 ms)`);
    lines.push(`loop 16-20 s in-process     mean ${loop.meanMs.toFixed(1)} ms, p50 ${loop.p50Ms.toFixed(1)} ms`);
    lines.push(`plan of an edit 30 s with H mean ${plan.meanMs.toFixed(2)} ms, p50 ${plan.p50Ms.toFixed(2)} ms (what POST /clip-plan computes on a cache miss)`);
    // Warmed on another demo song: a catalog's music, whose edits take the plan's search paths
    // (the synthetic piece's edits are one part each).
    lines.push(...(await firstPlansLines(serialiseAnalysis(songAnalysis), serialiseAnalysis((await analysedDemoSong(1)).analysis))));
    if (ffmpeg) {
      const reference = t('ffmpeg cut+encode 30 s (reference)');
      lines.push(`ffmpeg cut+encode 30 s      mean ${reference.meanMs.toFixed(1)} ms, p50 ${reference.p50Ms.toFixed(1)} ms (reference)`);
      lines.push(`ratio edit 30 s with H / ffmpeg: ${(edit.meanMs / reference.meanMs).toFixed(2)} (target <= 0.5)`);
      lines.push(`ratio clip (pool) / ffmpeg: ${(viaPool.meanMs / reference.meanMs).toFixed(2)}   in-process / ffmpeg: ${(inProcess.meanMs / reference.meanMs).toFixed(2)}   full re-encode / ffmpeg: ${(reencode.meanMs / reference.meanMs).toFixed(2)}   (target <= 1.0)`);
    } else {
      lines.push('ffmpeg not installed: no reference ratio (apt-get install ffmpeg)');
    }
    return lines;
  } finally {
    await pool.close();
  }
}
