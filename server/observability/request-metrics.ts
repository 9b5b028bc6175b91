// Metrics every finished request feeds: its latency by route and status (the histogram's _count is
// the request count), the credits it charged, and whether it was refused by a rate limit.
import { Counter, Histogram, type Registry } from 'prom-client';

// From a cached /me (~1 ms) to a long clip made on a busy engine (seconds).
const LATENCY_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const TOO_MANY_REQUESTS = 429;

export interface RequestMetrics {
  finished(route: string, status: number, seconds: number, credits: number): void;
}

export function createRequestMetrics(registry: Registry): RequestMetrics {
  const latency = new Histogram({
    name: 'mla_http_request_duration_seconds',
    help: 'Time from a request\'s arrival to its reply being written, by route and status; _count is the number of requests',
    labelNames: ['route', 'status'] as const,
    buckets: LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const credits = new Counter({
    name: 'mla_credits_charged_total',
    help: 'Credits charged (made final) by successful paid requests, by route',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'mla_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a per-minute or per-day rate limit, by route',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  // A labelled child per route and status, found by one map lookup: prom-client would otherwise
  // hash the label object on every observation.
  const children = new Map<string, Histogram.Internal<'route' | 'status'>>();
  return {
    finished(route, status, seconds, charged) {
      const id = `${route} ${status}`;
      let child = children.get(id);
      if (child === undefined) children.set(id, (child = latency.labels(route, String(status))));
      child.observe(seconds);
      if (charged > 0) credits.inc({ route }, charged);
      if (status === TOO_MANY_REQUESTS) refusals.inc({ route });
    },
  };
}
