// Settling that failed because the database was away (a refund, a give-back, a released key) is
// retried here until it succeeds. Each operation is safe to repeat: it deletes its token (the
// reservation, the usage record, the claim) and does nothing when the token is gone. If this
// process dies first, the sweep of dead processes settles its reservations and claims.
const RETRY_MS = 1_000;

export interface SettleLater {
  add(what: string, settle: () => Promise<unknown>): void;
  /** One more try of everything pending (shutdown); resolves with how many are still pending. */
  flush(): Promise<number>;
  close(): void;
}

export function createSettleLater(log: (message: string, err?: unknown) => void): SettleLater {
  let pending: { what: string; settle: () => Promise<unknown> }[] = [];

  async function retry(): Promise<number> {
    const now = pending;
    pending = [];
    for (const item of now) {
      try {
        await item.settle();
      } catch {
        pending.push(item);
      }
    }
    return pending.length;
  }

  const timer = setInterval(() => {
    if (pending.length > 0) retry().catch(() => {});
  }, RETRY_MS);
  timer.unref();

  return {
    add(what, settle) {
      log(`${what} failed; retrying every ${RETRY_MS} ms until the database is back`);
      pending.push({ what, settle });
    },
    flush: retry,
    close: () => clearInterval(timer),
  };
}
