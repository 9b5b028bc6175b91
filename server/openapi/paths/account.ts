// GET /me and GET /usage: the calling key's account and its request history.
import type { PathItemObject } from '../types.ts';
import { integerQuery, keyedJson, keyedOperation } from './operation.ts';

export const accountPaths: Record<string, PathItemObject> = {
  '/me': {
    get: keyedOperation({
      operationId: 'me',
      summary: 'The calling key: tier, credits, allowance, limits',
      description: 'Succeeds only with a valid active key, so it doubles as a key check (spec 4.3). Takes no query parameters.',
      tag: 'Account',
      cost: 0,
      success: {
        200: keyedJson('Account metadata.', 'Me', {
          tier: 'starter', credits_remaining: 299, monthly_allowance: 300,
          rate_limit: { requests_per_minute: 10, requests_per_day: 1000 },
          created_at: '2026-11-01T09:30:00.000Z', last_used_at: '2026-11-23T14:02:11.514Z',
        }),
      },
      errors: ['invalid_parameters'],
    }),
  },
  '/usage': {
    get: keyedOperation({
      operationId: 'usage',
      summary: 'Request history of the calling key, newest first',
      description: 'One record per authenticated request, kept 13 months (spec 4.4). A page shorter than `limit` is the last page. '
        + 'Unknown or repeated query parameters are 400s.',
      tag: 'Account',
      cost: 0,
      parameters: [integerQuery('limit', 'Records per page.', 1, 100, 50), integerQuery('offset', 'Records to skip.', 0, 2_147_483_647, 0)],
      success: {
        200: keyedJson('A usage page.', 'UsagePage', {
          usage: [
            { timestamp: '2026-11-23T14:02:11.514Z', endpoint: '/download-track', status_code: 200, credits_consumed: 1, response_time_ms: 41.2 },
            { timestamp: '2026-11-23T14:01:58.003Z', endpoint: '/search', status_code: 200, credits_consumed: 1, response_time_ms: 6.31 },
          ],
          total_count: 2, offset: 0, limit: 50,
        }),
      },
      errors: ['invalid_parameters'],
    }),
  },
};
