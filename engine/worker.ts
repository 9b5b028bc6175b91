// The engine's worker thread (piscina): analyse, clip, plan and warm tasks. Heavy audio work never runs on the
// server's main thread. Results are moved back (transferred), not copied.
import fs from 'node:fs/promises';
import { threadId } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { LRUCache } from 'lru-cache';
import { indexFrames, type FrameIndex } from './mp3/frame-index.ts';
import { decodeAll } from './mp3/decode.ts';
import { analysePcm, type Analysis } from './analysis/analyse.ts';
import { deserialiseAnalysis, serialiseAnalysis } from './analysis/serialise.ts';
import { makeClip } from './clip.ts';
import { planClip } from './plan/plan-clip.ts';
import { type PlanGrid, planGrid } from './plan/grid.ts';
import { isEngineError } from './errors.ts';
import type { ClipMode, ClipPlan, ClipRequest } from './plan/plan.ts';
import { warmPlans } from './warm-up.ts';
import { makeMasters, type DurationLimits, type Masters } from './masters/make-masters.ts';
import type { MasterFormat } from './masters/master-shape.ts';

export type TaskResult<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string; details: Record<string, number> } };

export interface AnalyseTask {
  mp3?: Uint8Array;
  path?: string;
}

/** A delivered master to read from `path` (not cached: it is read once, at ingest). */
export interface MastersTask extends DurationLimits {
  path: string;
  format: MasterFormat;
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
export type ClipTask = PlanTask & ({ mp3: Uint8Array; path?: undefined } | { path: string; mp3?: undefined });

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

/** A track's analysis with its planning context (plan/grid.ts), worked out once and kept together. */
interface PlannedTrack {
  analysis: Analysis;
  grid: PlanGrid;
}

// Deserialised analyses by track, each with its planning context (an analysis is a function of
// the audio, and deserialising refuses any other version than this engine's). The arrays are
// views of the task's bytes: their length is what an entry holds.
const tracks = new LRUCache<string, PlannedTrack>({ maxSize: 64 * 1024 * 1024 });

function trackOf(task: AnalysisOfTrack): PlannedTrack {
  const cached = task.analysisKey ? tracks.get(task.analysisKey) : undefined;
  if (cached) return cached;
  const analysis = deserialiseAnalysis(task.analysis);
  const track = { analysis, grid: planGrid(analysis) };
  if (task.analysisKey) tracks.set(task.analysisKey, track, { size: task.analysis.byteLength + 1 });
  return track;
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

/** The clip master and full download of a delivered master (masters/make-masters.ts). */
export function masters(task: MastersTask) {
  return settle(async () => {
    const value: Masters = await makeMasters(new Uint8Array(await fs.readFile(task.path)), task.format, task);
    return { value, buffers: [value.clipMaster?.buffer, value.download?.buffer].filter((b) => b !== undefined) };
  });
}

/** The request a clip or plan task carries; segment (the spec's behaviour) unless it says otherwise. */
function clipRequestOf(task: PlanTask): ClipRequest {
  return { mode: task.mode ?? 'segment', durationSeconds: task.durationSeconds, hitPointSeconds: task.hitPointSeconds };
}

export function clip(task: ClipTask) {
  return settle(async () => {
    const { bytes, index } = await source(task);
    const { analysis, grid } = trackOf(task);
    const result = await makeClip(bytes, index, analysis, clipRequestOf(task), { grid });
    const value: ClipValue = { mp3: result.mp3, plan: result.plan, samples: result.samples, method: result.method };
    return { value, buffers: [result.mp3.buffer] };
  });
}

/** A plan task's result: the plan the clip task with the same request follows. */
export interface PlanValue {
  plan: ClipPlan;
}

/** The plan a clip task would follow (POST /clip-plan): planning is deterministic, so it is the same plan. */
export function plan(task: PlanTask) {
  return settle(async () => {
    const { analysis, grid } = trackOf(task);
    const value: PlanValue = { plan: planClip(analysis, clipRequestOf(task), grid) };
    return { value, buffers: [] };
  });
}

/** Warms this thread's plan code (warm-up.ts) before traffic comes. */
export function warm(task: WarmTask) {
  return settle(async () => {
    const { analysis, grid } = trackOf(task);
    const value: WarmValue = { threadId, planned: warmPlans(analysis, grid, task.first, task.count) };
    return { value, buffers: [] };
  });
}

/** Diagnostic: ends this worker thread abruptly, as a fatal fault would (the pool must recover). */
export function crash(): never {
  process.exit(70);
}
