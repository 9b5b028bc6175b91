// Coalesces concurrent calls into one database statement per batch: calls arriving in the same
// event-loop turn share a batch; while `maxInFlight` batches are out, new calls wait for the
// next one. One statement (and one commit, one WAL flush) for many requests is what lets one
// PostgreSQL serve thousands of them a second.
export type BatchRunner<Item, Result> = (items: Item[]) => Promise<Result[]>;

// Batches out at once, by default. A batch mostly waits: for its commit and, under load on 2 cores,
// for a CPU to run its statement. Four in flight gave 7-22% more cached clips per second than two
// (p99 62-68 ms vs 77-81 ms), and /me 5,900-7,400 req/s vs 5,200-5,400 (p99 27-39 ms vs 45-46),
// in alternating runs; eight did no better than four.
const DEFAULT_IN_FLIGHT = 4;

export interface StatementBatcher<Item, Result> {
  /** Resolves with this item's result, in the order `run` returned them. */
  submit(item: Item): Promise<Result>;
}

interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(err: unknown): void;
}

export function createStatementBatcher<Item, Result>(
  run: BatchRunner<Item, Result>,
  options: { maxBatch?: number; maxInFlight?: number } = {},
): StatementBatcher<Item, Result> {
  const maxBatch = options.maxBatch ?? 256;
  const maxInFlight = options.maxInFlight ?? DEFAULT_IN_FLIGHT;
  let queue: Waiting<Item, Result>[] = [];
  let inFlight = 0;
  let scheduled = false;

  function schedule() {
    if (scheduled || inFlight >= maxInFlight || queue.length === 0) return;
    scheduled = true;
    setImmediate(send);
  }

  function send() {
    scheduled = false;
    if (inFlight >= maxInFlight || queue.length === 0) return;
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    inFlight += 1;
    run(batch.map((w) => w.item))
      .then((results) => batch.forEach((w, i) => w.resolve(results[i])))
      .catch((err) => batch.forEach((w) => w.reject(err)))
      .finally(() => {
        inFlight -= 1;
        schedule();
      });
    schedule();
  }

  return {
    submit(item) {
      return new Promise((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
  };
}
