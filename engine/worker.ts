// The engine's worker thread (piscina): analyse, clip, plan and warm tasks. Heavy audio work never runs on the
// server's main thread. Results are moved back (transferred), not copied.
import fs from 'node:fs/promises';
import { threadId } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { LRUCache } from 'lru-cache';
import { indexFrames, type FrameIndex } from './mp3/frame-index.ts';
import { decodeAll, openRangeDecoder } from './mp3/decode.ts';
import { analysePcm, type Analysis } from './analysis/analyse.ts';
import { deserialiseAnalysis, serialiseAnalysis } from './analysis/serialise.ts';
import { heardPlan, makeClip } from './clip.ts';
import type { PlanSource } from './render-plan.ts';
import { isEngineError } from './errors.ts';
import type { ClipMode, ClipPlan, ClipRequest } from './plan/plan.ts';
import { warmPlans } from './warm-up.ts';

export type TaskResult<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string; details: Record<string, number> } };

export interface AnalyseTask {
  mp3?: Uint8Array;
  path?: string;
}

/** A track's serialised analysis as a task carries it. */
export interface AnalysisOfTrack {
  analysis: Uint8Array;
  /** The track's audio hash: when given, the worker keeps the analysis deserialised (with its bar grid) for the next task. */
  analysisKey?: string;
}

export interface PlanTask extends AnalysisOfTrack {
  /** Default 'segment' (the spec's behaviour). */
  mode?: ClipMode;
  durationSeconds: number;
  hitPointSeconds?: number;
  /** The track's audio (bytes, or a file of the store): read only when a thin edit is listened to (listened-plan.ts). */
  mp3?: Uint8Array;
  path?: string;
}

/** A batch of warming plans (warm-up.ts) on one track: requests `first` .. `first + count - 1`. */
export interface WarmTask extends AnalysisOfTrack {
  first: number;
  count: number;
}

/** Which thread ran a warming batch, and how many of its requests made a plan. */
export interface WarmValue {
  threadId: number;
  planned: number;
}

/** A clip task carries the track's audio: it is always read. */
export type ClipTask = PlanTask & ({ mp3: Uint8Array } | { path: string });

export interface ClipValue {
  mp3: Uint8Array;
  plan: ClipPlan;
  samples: number;
  method: 'splice' | 'encode';
}

interface Source {
  bytes: Uint8Array;
  index: FrameIndex;
}

// Files of the catalog store are immutable (content-addressed): their bytes and frame index can be kept.
const sources = new LRUCache<string, Source>({ maxSize: 128 * 1024 * 1024, sizeCalculation: (s) => s.bytes.length + s.index.offsets.length * 6 + 1 });

async function source(task: { mp3?: Uint8Array; path?: string }): Promise<Source> {
  if (task.mp3) return { bytes: task.mp3, index: indexFrames(task.mp3) };
  if (!task.path) throw new Error('task needs mp3 bytes or a path');
  const cached = sources.get(task.path);
  if (cached) return cached;
  const bytes = new Uint8Array(await fs.readFile(task.path));
  const loaded = { bytes, index: indexFrames(bytes) };
  sources.set(task.path, loaded);
  return loaded;
}

// Deserialised analyses by track (an analysis is a function of the audio, and deserialising
// refuses any other version than this engine's). A plan's bar grid is kept with its analysis
// object (engine/plan/bar-grid.ts), so a track's second plan skips about 1 ms of set-up. The
// arrays are views of the task's bytes: their length is what an entry holds.
const analyses = new LRUCache<string, Analysis>({ maxSize: 64 * 1024 * 1024 });

function analysisOf(task: AnalysisOfTrack): Analysis {
  if (!task.analysisKey) return deserialiseAnalysis(task.analysis);
  let analysis = analyses.get(task.analysisKey);
  if (!analysis) {
    analysis = deserialiseAnalysis(task.analysis);
    analyses.set(task.analysisKey, analysis, { size: task.analysis.byteLength + 1 });
  }
  return analysis;
}

/** Hands the result back to the main thread, transferring (not copying) the listed buffers. */
function moved<T>(result: TaskResult<T>, buffers: ArrayBufferLike[]) {
  return move({ [transferableSymbol]: buffers, [valueSymbol]: result } as any);
}

async function settle<T>(work: () => Promise<{ value: T; buffers: ArrayBufferLike[] }>) {
  try {
    const { value, buffers } = await work();
    return moved<T>({ ok: true, value }, buffers);
  } catch (err) {
    if (isEngineError(err)) return { ok: false, error: { code: err.code, message: err.message, details: err.details } };
    throw err;
  }
}

export function analyse(task: AnalyseTask) {
  return settle(async () => {
    const { bytes, index } = await source(task);
    const analysis = serialiseAnalysis(analysePcm(await decodeAll(bytes, index)));
    return { value: analysis, buffers: [analysis.buffer] };
  });
}

/** The request a clip or plan task carries; segment (the spec's behaviour) unless it says otherwise. */
function clipRequestOf(task: PlanTask): ClipRequest {
  return { mode: task.mode ?? 'segment', durationSeconds: task.durationSeconds, hitPointSeconds: task.hitPointSeconds };
}

export function clip(task: ClipTask) {
  return settle(async () => {
    const { bytes, index } = await source(task);
    const result = await makeClip(bytes, index, analysisOf(task), clipRequestOf(task));
    const value: ClipValue = { mp3: result.mp3, plan: result.plan, samples: result.samples, method: result.method };
    return { value, buffers: [result.mp3.buffer] };
  });
}

/** A plan task's result: the plan, and its clip when the task made it to hear it (a thin edit: listened-plan.ts). */
export interface PlanValue {
  plan: ClipPlan;
  /** What the clip task with the same request makes: a download of it need not make it again. */
  clip?: ClipValue;
}

/**
 * The plan a clip task would follow (POST /clip-plan): a thin edit's clip is made and heard as
 * the clip task's would be (listened-plan.ts), so the plan is the same, and that clip comes back too.
 */
export function plan(task: PlanTask) {
  return settle(async () => {
    let opened: PlanSource | undefined;
    // Read and opened once, at the first clip heard (most plans hear none).
    const openSource = async () => (opened ??= { ...(await source(task)), decoder: await openRangeDecoder() });
    try {
      const value: PlanValue = await heardPlan(analysisOf(task), clipRequestOf(task), openSource);
      return { value, buffers: value.clip ? [value.clip.mp3.buffer] : [] };
    } finally {
      opened?.decoder.close();
    }
  });
}

/** Warms this thread's plan code (warm-up.ts) before traffic comes. */
export function warm(task: WarmTask) {
  return settle(async () => {
    const value: WarmValue = { threadId, planned: warmPlans(analysisOf(task), task.first, task.count) };
    return { value, buffers: [] };
  });
}

/** Diagnostic: ends this worker thread abruptly, as a fatal fault would (the pool must recover). */
export function crash(): never {
  process.exit(70);
}
