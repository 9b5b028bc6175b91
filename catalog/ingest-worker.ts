// Every running node takes part in ingests: it makes queued jobs (ingest-jobs.ts) one at a time, so
// that clips keep the engine's other threads. It wakes when a job is queued (LISTEN on
// INGEST_CHANNEL) and looks again every LOOK_EVERY_MS in case a notice was missed (a job released
// by a worker that died is announced by no one).
import type { JobDeps } from './ingest-jobs.ts';
import { INGEST_CHANNEL, runOneJob } from './ingest-jobs.ts';

const LOOK_EVERY_MS = 5_000;

export interface IngestWorker {
  /** Stops taking jobs and waits for the one being made. */
  stop(): Promise<void>;
}

export async function startIngestWorker(deps: JobDeps & { log: (message: string, err?: unknown) => void }): Promise<IngestWorker> {
  let stopped = false;
  let running: Promise<void> | undefined;
  let lookAgain = false;
  const drain = async () => {
    do {
      lookAgain = false;
      while (!stopped && (await runOneJob(deps)));
    } while (lookAgain && !stopped);
  };
  const wake = () => {
    if (stopped) return;
    if (running) {
      lookAgain = true;
      return;
    }
    running = drain()
      .catch((err) => deps.log('ingest job not made; it stays queued', err))
      .finally(() => (running = undefined));
  };
  const listener = await deps.sql.listen(INGEST_CHANNEL, wake);
  const timer = setInterval(wake, LOOK_EVERY_MS);
  timer.unref();
  wake();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await listener.unlisten().catch(() => {});
      await running;
    },
  };
}
