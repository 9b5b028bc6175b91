// GET /metrics (Prometheus text format, prom-client): outside the API's base path and without a
// key, on the API's port (METRICS=1) or on a listener of its own (METRICS_PORT), off otherwise.
// Each service has its own registry, so several services can run in one process (tests).
import { collectDefaultMetrics, Registry } from 'prom-client';
import { buildApp, listen, unauthenticated, type Route } from '../http/app.ts';
import type { Log } from '../http/error-reply.ts';
import { createRequestMetrics, type RequestMetrics } from './request-metrics.ts';
import type { ObserveRequest } from './request-observer.ts';

export const METRICS_PATH = '/metrics';

export interface Metrics {
  registry: Registry;
  requests: RequestMetrics;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  // The process's CPU, memory, event-loop delay and GC, as Node services usually report them.
  collectDefaultMetrics({ register: registry });
  return { registry, requests: createRequestMetrics(registry) };
}

export function metricsRoute(metrics: Metrics, log: Log): Route {
  const { registry } = metrics;
  return {
    method: 'get',
    path: METRICS_PATH,
    handler: unauthenticated(async () => ({ status: 200, headers: { 'Content-Type': registry.contentType }, body: await registry.metrics() }), log),
  };
}

/** GET /metrics alone on its own port (anything else there is a 404). */
export async function serveMetricsApart(metrics: Metrics, host: string, port: number, log: Log, observe: ObserveRequest) {
  return listen(buildApp([metricsRoute(metrics, log)], { draining: false }, observe), host, port);
}
