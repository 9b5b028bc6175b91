// Spec section 7's client rules, in one place: on 429 wait Retry-After, then retry; never retry
// 402 (credits do not come back by waiting); retry 500 and 503 after a short backoff (503's own
// Retry-After when it gives one); a connection that failed is retried like a 503. All bounded.
// A paid request is only retried with an Idempotency-Key (client.ts sends one), so a retry after
// a lost reply is never charged twice.

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** First backoff for 500/503 and failed connections; doubled on each further attempt. */
  backoffMs: number;
  /** A 429 or 503 asking for a longer wait than this (a daily limit) is returned, not waited out. */
  maxWaitSeconds: number;
  /** Told before each wait (for logs, metrics, tests). */
  onRetry?: (retry: { attempt: number; status: number | 'network'; waitMs: number }) => void;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, backoffMs: 250, maxWaitSeconds: 120 };

const RETRIED_STATUSES = new Set([429, 500, 503]);
const MS_PER_S = 1000;

function retryAfterSeconds(response: Response): number | undefined {
  const header = response.headers.get('retry-after');
  return header !== null && /^\d+$/.test(header) ? Number(header) : undefined;
}

/** How long to wait before the next attempt, or undefined when this response must be returned. */
function waitBefore(response: Response, attempt: number, policy: RetryPolicy): number | undefined {
  if (!RETRIED_STATUSES.has(response.status)) return undefined;
  const told = retryAfterSeconds(response);
  if (told !== undefined && told > policy.maxWaitSeconds) return undefined;
  if (response.status === 429) return told === undefined ? undefined : told * MS_PER_S;
  return told !== undefined ? told * MS_PER_S : policy.backoffMs * 2 ** (attempt - 1);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends (again, through `send`) until a reply that is not retried, or the attempts run out. */
export async function sendWithRetries(send: () => Promise<Response>, policy: RetryPolicy): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await send();
    } catch (err) {
      if (attempt >= policy.maxAttempts) throw err;
      const waitMs = policy.backoffMs * 2 ** (attempt - 1);
      policy.onRetry?.({ attempt, status: 'network', waitMs });
      await sleep(waitMs);
      continue;
    }
    const waitMs = attempt < policy.maxAttempts ? waitBefore(response, attempt, policy) : undefined;
    if (waitMs === undefined) return response;
    await response.body?.cancel(); // frees the connection for the retry
    policy.onRetry?.({ attempt, status: response.status, waitMs });
    await sleep(waitMs);
  }
}
