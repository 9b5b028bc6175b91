// An account's usage history across its keys (the dashboard's Usage and Overview pages): records
// of the account's keys only, filtered by key, endpoint and status, and daily totals for a chart.
import type { Sql } from '../db/connect.ts';

export interface UsageFilter {
  keyId?: number;
  endpoint?: string;
  statusCode?: number;
}

export interface AccountUsageRecord {
  timestamp: string;
  endpoint: string;
  status_code: number;
  credits_consumed: number;
  response_time_ms: number;
  request_id: string;
  key: { id: number; name: string; prefix: string };
}

// NULL parameters switch a filter off: one prepared statement for every combination.
export async function readAccountUsage(sql: Sql, accountId: number, filter: UsageFilter, limit: number, offset: number) {
  const where = sql`k.account_id = ${accountId}
       AND (${filter.keyId ?? null}::bigint IS NULL OR u.key_id = ${filter.keyId ?? null}::bigint)
       AND (${filter.endpoint ?? null}::text IS NULL OR u.endpoint = ${filter.endpoint ?? null}::text)
       AND (${filter.statusCode ?? null}::integer IS NULL OR u.status_code = ${filter.statusCode ?? null}::integer)`;
  const [rows, [count]] = await Promise.all([
    sql`SELECT u.requested_at, u.endpoint, u.status_code, u.credits_consumed, u.response_time_ms, u.request_id, k.id AS key_id, k.name, k.prefix
          FROM usage_records u JOIN api_keys k ON k.id = u.key_id
         WHERE ${where} ORDER BY u.requested_at DESC, u.id DESC LIMIT ${limit} OFFSET ${offset}`,
    sql`SELECT count(*)::integer AS n FROM usage_records u JOIN api_keys k ON k.id = u.key_id WHERE ${where}`,
  ]);
  const usage: AccountUsageRecord[] = rows.map((r) => ({
    timestamp: r.requested_at.toISOString(), endpoint: r.endpoint, status_code: r.status_code, credits_consumed: r.credits_consumed,
    response_time_ms: Math.round(r.response_time_ms * 100) / 100, request_id: r.request_id,
    key: { id: Number(r.key_id), name: r.name, prefix: r.prefix },
  }));
  return { usage, total_count: count.n as number };
}

/** The endpoints the account's usage names, for the filter's choices. */
export async function accountEndpoints(sql: Sql, accountId: number): Promise<string[]> {
  const rows = await sql`SELECT DISTINCT u.endpoint FROM usage_records u JOIN api_keys k ON k.id = u.key_id WHERE k.account_id = ${accountId} ORDER BY 1`;
  return rows.map((r) => r.endpoint);
}

export const CHART_DAYS = 30;

export interface DailyUsage {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  requests: number;
  credits: number;
}

/** Requests and credits per UTC day over the last CHART_DAYS days (today included; days without requests are 0). */
export async function readDailyUsage(sql: Sql, accountId: number): Promise<DailyUsage[]> {
  const rows = await sql`
    WITH days AS (
      SELECT generate_series((now() AT TIME ZONE 'UTC')::date - ${CHART_DAYS - 1}::integer, (now() AT TIME ZONE 'UTC')::date, interval '1 day')::date AS day
    ), used AS (
      SELECT (u.requested_at AT TIME ZONE 'UTC')::date AS day, count(*)::integer AS requests, sum(u.credits_consumed)::integer AS credits
        FROM usage_records u JOIN api_keys k ON k.id = u.key_id
       WHERE k.account_id = ${accountId} AND u.requested_at >= ((now() AT TIME ZONE 'UTC')::date - ${CHART_DAYS - 1}::integer) AT TIME ZONE 'UTC'
       GROUP BY 1
    )
    SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(u.requests, 0) AS requests, coalesce(u.credits, 0) AS credits
      FROM days d LEFT JOIN used u ON u.day = d.day ORDER BY d.day`;
  return rows.map((r) => ({ day: r.day, requests: r.requests, credits: r.credits }));
}

/** Requests of the account's keys today and this month (UTC). */
export async function readRequestCounts(sql: Sql, accountId: number): Promise<{ today: number; month: number }> {
  const [row] = await sql`
    SELECT count(*) FILTER (WHERE u.requested_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')::integer AS today,
           count(*)::integer AS month
      FROM usage_records u JOIN api_keys k ON k.id = u.key_id
     WHERE k.account_id = ${accountId} AND u.requested_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
  return { today: row.today, month: row.month };
}
