// Counts requests in progress so a graceful shutdown can wait for them to finish.
export interface InFlight {
  /** Marks a request started; call the returned function when it is finished. */
  begin(): () => void;
  count(): number;
  /** Resolves when no request is in progress (or after timeoutMs). */
  /** True once no request is in flight; false after `timeoutMs`, or at once when `cutShort` aborts. */
  drained(timeoutMs: number, cutShort?: AbortSignal): Promise<boolean>;
}

export function createInFlight(): InFlight {
  let active = 0;
  let waiters: (() => void)[] = [];
  return {
    begin() {
      active += 1;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        active -= 1;
        if (active === 0) {
          for (const wake of waiters) wake();
          waiters = [];
        }
      };
    },
    count: () => active,
    drained(timeoutMs, cutShort) {
      if (active === 0) return Promise.resolve(true);
      if (cutShort?.aborted) return Promise.resolve(false);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        cutShort?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve(false);
        }, { once: true });
        waiters.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
  };
}
