// GET /me (spec 2.5): the calling key's tier, balance, allowance and limits. Free.
import type { Endpoint } from '../http/endpoint.ts';
import { jsonReply } from '../http/reply.ts';
import { rejectQueryParameters } from '../http/query.ts';

export const meEndpoint: Endpoint = {
  name: '/me',
  cost: 0,
  jsonBody: false,
  async handle({ admission, query }) {
    rejectQueryParameters(query, []);
    return jsonReply({
      tier: admission.tier,
      credits_remaining: admission.credits,
      monthly_allowance: admission.monthlyCredits,
      rate_limit: {
        requests_per_minute: admission.requestsPerMinute,
        requests_per_day: admission.requestsPerDay,
      },
      created_at: admission.createdAt.toISOString(),
      last_used_at: admission.lastUsedAt.toISOString(),
    });
  },
};
