// The engine's worker pool (piscina): explicit thread count, idle timeout and a bounded queue.
// A full queue is a typed "busy" error (the server answers 503 + Retry-After); a crashed worker
// fails only its own task and piscina replaces it.
import os from 'node:os';
import { Piscina } from 'piscina';
import { EngineError, type EngineErrorCode } from './errors.ts';
import { deserialiseAnalysis } from './analysis/serialise.ts';
import type { Analysis } from './analysis/analyse.ts';
import type { AnalyseTask, AnalysisOfTrack, ClipTask, ClipValue, MastersTask, PlanTask, PlanValue, TaskResult, WarmValue } from './worker.ts';
import type { Masters } from './masters/make-masters.ts';

export interface EnginePoolOptions {
  /** Worker threads; default: the CPU count (audio work is CPU-bound, more threads only contend). */
  threads?: number;
  /** Tasks allowed to wait for a thread; beyond that, run() fails fast with "busy". */
  maxQueue?: number;
  /** Milliseconds an idle thread is kept (its WASM decoders/encoders are warm). */
  idleTimeoutMs?: number;
}

export interface EnginePool {
  analyse(task: AnalyseTask): Promise<{ analysis: Analysis; bytes: Uint8Array }>;
  /** The clip master and full download of a delivered master (ingest). */
  masters(task: MastersTask): Promise<Masters>;
  clip(task: ClipTask): Promise<ClipValue>;
  /** The plan the same clip task would follow: no audio is read unless the plan is a thin edit's, whose clip is made and heard, and returned too (worker.ts plan). */
  plan(task: PlanTask): Promise<PlanValue>;
  /**
   * Warms every thread's plan code on one track's analysis (warm-up.ts): about `plansPerThread`
   * plans each, in batches, a round of one batch per thread at a time. Resolves with the plans
   * made by each thread id.
   */
  warm(task: AnalysisOfTrack & { plansPerThread: number }): Promise<Map<number, number>>;
  /** Ends one worker thread abruptly (diagnostics and tests of recovery). */
  crashOneWorker(): Promise<void>;
  status(): { threads: number; queued: number; completed: number; utilization: number; maxQueue: number };
  close(): Promise<void>;
}

const workerFile = new URL('./worker-entry.mjs', import.meta.url).href;

/**
 * Plans a warming task makes (warm-up.ts): about 30-60 ms of work, the longest a request waits
 * behind one. Here, not in warm-up.ts: that module loads the whole plan code, which only the
 * worker threads run.
 */
export const WARM_BATCH_PLANS = 40;

/** Moved buffers arrive as Uint8Array, Buffer or bare ArrayBuffer depending on the path taken. */
function asBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new Error('engine worker returned no bytes');
}

function unwrap<T>(result: TaskResult<T>): T {
  if (result.ok) return result.value;
  throw new EngineError(result.error.code as EngineErrorCode, result.error.message, result.error.details);
}

export function createEnginePool(options: EnginePoolOptions = {}): EnginePool {
  const threads = options.threads ?? os.availableParallelism();
  const maxQueue = options.maxQueue ?? threads * 16;
  const pool = new Piscina({
    filename: workerFile,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: options.idleTimeoutMs ?? 60_000,
    maxQueue,
    // Each task is CPU-bound: one at a time per thread.
    concurrentTasksPerWorker: 1,
  });

  async function run<T>(name: string, task: object, transfer: ArrayBuffer[] = []): Promise<T> {
    try {
      return unwrap<T>(await pool.run(task, { name, transferList: transfer }));
    } catch (err) {
      if (err instanceof Error && /queue is at limit|no task queue available/i.test(err.message)) {
        throw new EngineError('busy', 'the audio engine is at capacity; retry shortly');
      }
      throw err;
    }
  }

  const transferable = (bytes?: Uint8Array) => (bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : []);

  return {
    async analyse(task) {
      const bytes = asBytes(await run<unknown>('analyse', task, transferable(task.mp3)));
      return { analysis: deserialiseAnalysis(bytes), bytes };
    },
    async masters(task) {
      const value = await run<Masters>('masters', task);
      return { ...value, clipMaster: value.clipMaster && asBytes(value.clipMaster), download: value.download && asBytes(value.download) };
    },
    async clip(task) {
      const value = await run<ClipValue>('clip', task, transferable(task.mp3));
      return { ...value, mp3: asBytes(value.mp3) };
    },
    async plan(task) {
      return run<PlanValue>('plan', task);
    },
    async warm({ analysis, analysisKey, plansPerThread }) {
      const planned = new Map<number, number>();
      let first = 0;
      // One batch per thread at once: each thread runs one task at a time, so a round's batches
      // go to different threads (a thread busy with a request takes its batch after it).
      for (let round = 0; round < Math.ceil(plansPerThread / WARM_BATCH_PLANS); round++) {
        const batches = Array.from({ length: threads }, () => {
          const batch = { analysis, analysisKey, first, count: WARM_BATCH_PLANS };
          first += WARM_BATCH_PLANS;
          return run<WarmValue>('warm', batch);
        });
        for (const value of await Promise.all(batches)) planned.set(value.threadId, (planned.get(value.threadId) ?? 0) + value.planned);
      }
      return planned;
    },
    async crashOneWorker() {
      await pool.run({}, { name: 'crash' }).catch(() => {});
    },
    status: () => ({ threads: pool.threads.length, queued: pool.queueSize, completed: pool.completed, utilization: pool.utilization, maxQueue }),
    close: () => pool.destroy(),
  };
}
