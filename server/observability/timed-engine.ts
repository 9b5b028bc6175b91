// The engine pool with each task's time measured from the server's side: from submission to
// result, queue wait included (what a request waits), by task. engine/ stays free of metrics.
import { Histogram, type Registry } from 'prom-client';
import type { EnginePool } from '../../engine/pool.ts';

// Plans take milliseconds; a clip of a long track on a busy pool, seconds.
const TASK_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function timedEngine(engine: EnginePool, registry: Registry): EnginePool {
  const taskTime = new Histogram({
    name: 'mla_engine_task_duration_seconds',
    help: 'Audio engine tasks from submission to result (queue wait included), by task and outcome',
    labelNames: ['task', 'outcome'] as const,
    buckets: TASK_BUCKETS_S,
    registers: [registry],
  });
  function timed<A, R>(task: string, run: (arg: A) => Promise<R>): (arg: A) => Promise<R> {
    return async (arg) => {
      const end = taskTime.startTimer({ task });
      try {
        const result = await run(arg);
        end({ outcome: 'ok' });
        return result;
      } catch (err) {
        end({ outcome: 'error' });
        throw err;
      }
    };
  }
  return { ...engine, analyse: timed('analyse', engine.analyse), clip: timed('clip', engine.clip), plan: timed('plan', engine.plan) };
}
