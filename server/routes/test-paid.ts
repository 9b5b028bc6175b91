// POST /_test/paid: a paid route that exists only when ENABLE_TEST_ROUTES=1, used by the tests to
// prove the credit mechanism under concurrency before the real paid endpoints exist.
// Body: { "fail": boolean, "delay_ms": number } -- fail answers 500 after the delay.
import type { Endpoint } from '../http/endpoint.ts';
import { ApiError } from '../http/api-error.ts';
import { jsonReply } from '../http/reply.ts';

export const testPaidEndpoint: Endpoint = {
  name: '/_test/paid',
  cost: 1,
  jsonBody: true,
  async handle({ body, signal }) {
    const delay = typeof body?.delay_ms === 'number' ? Math.min(body.delay_ms, 10_000) : 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (signal.aborted) throw signal.reason;
    if (body?.fail === true) throw new ApiError(503, 'service_unavailable', 'test route asked to fail');
    return jsonReply({ ok: true });
  },
};
