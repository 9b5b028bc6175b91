// GET /usage (spec 2.4): the calling key's request history, newest first. Free.
import type { Sql } from '../../db/connect.ts';
import type { Endpoint } from '../http/endpoint.ts';
import { jsonReply } from '../http/reply.ts';
import { pageOf } from './paging.ts';
import { readUsagePage, type UsageLog } from '../../billing/usage-log.ts';

export function usageEndpoint(sql: Sql, usage: UsageLog): Endpoint {
  return {
    name: '/usage',
    cost: 0,
    jsonBody: false,
    async handle({ admission, query }) {
      const { limit, offset } = pageOf(query);
      await usage.flush(); // a client sees its own earlier requests
      const page = await readUsagePage(sql, admission.keyId, limit, offset);
      return jsonReply({ usage: page.usage, total_count: page.total_count, offset, limit });
    },
  };
}
