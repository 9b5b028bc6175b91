// Paid routes that exist only when ENABLE_TEST_ROUTES=1, used by the tests to prove the credit
// mechanisms under concurrency and failure, whatever the real endpoints do:
//   POST /_test/paid   reserve, work, commit or refund (Endpoint.handle)
//   POST /_test/answer charged while the answer is worked out (Endpoint.answer, as search is)
// Body: { "fail": boolean, "delay_ms": number, "finish_after_abort": boolean } -- fail answers 503
// after the delay; finish_after_abort works on when the client has gone away, as search does.
import type { Endpoint } from '../http/endpoint.ts';
import { ApiError } from '../http/api-error.ts';
import { jsonReply } from '../http/reply.ts';

async function work(body: Record<string, unknown> | undefined, signal: AbortSignal): Promise<void> {
  const delay = typeof body?.delay_ms === 'number' ? Math.min(body.delay_ms, 10_000) : 0;
  if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  if (signal.aborted && body?.finish_after_abort !== true) throw signal.reason;
  if (body?.fail === true) throw new ApiError(503, 'service_unavailable', 'test route asked to fail');
}

export const testPaidEndpoint: Endpoint = {
  name: '/_test/paid',
  cost: 1,
  jsonBody: true,
  idempotency: 'stored',
  async handle({ body, signal }) {
    await work(body, signal);
    return jsonReply({ ok: true });
  },
};

export const testAnswerEndpoint: Endpoint = {
  name: '/_test/answer',
  cost: 1,
  jsonBody: true,
  idempotency: 'stored',
  async answer({ body, signal }) {
    await work(body, signal);
    return (creditsRemaining) => jsonReply({ ok: true, credits_remaining: creditsRemaining });
  },
};
