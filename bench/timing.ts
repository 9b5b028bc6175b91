// tinybench wrapper: run a few named async tasks and return their latency statistics (ms).
import { Bench } from 'tinybench';

export interface Timing {
  name: string;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  runs: number;
}

export async function timeTasks(tasks: Record<string, () => Promise<unknown> | unknown>, iterations = 10): Promise<Map<string, Timing>> {
  const bench = new Bench({ iterations, time: 0, warmupIterations: 2, warmupTime: 0, throws: true });
  for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
  await bench.run();
  const out = new Map<string, Timing>();
  for (const task of bench.tasks) {
    const result = task.result as any;
    if (result.state !== 'completed') throw new Error(`${task.name}: ${result.state} ${result.error ?? ''}`);
    out.set(task.name, { name: task.name, meanMs: result.latency.mean, p50Ms: result.latency.p50, p99Ms: result.latency.p99, runs: result.latency.samplesCount ?? iterations });
  }
  return out;
}
