// What happens when a request is finished: its log line (request id, route, status, duration, the
// key's display prefix, credits charged) and its metrics. Built to cost little per request: the
// line's object is made only when the info level is on, the key's prefix only then.
import { bearerToken } from '../../billing/admission.ts';
import { displayPrefixOf } from '../../billing/api-keys.ts';
import type { Logger } from './logger.ts';
import type { RequestMetrics } from './request-metrics.ts';

export interface FinishedRequest {
  requestId: string;
  /** The route's name: an endpoint's as in usage records ("/me"), or the path of one without a key. */
  route: string;
  status: number;
  /** performance.now() at arrival. */
  startedAt: number;
  /** The Authorization header as sent ('' for routes without a key): only its key's prefix is logged. */
  authorization: string;
  /** Credits charged and made final by this request. */
  credits: number;
}

export type ObserveRequest = (finished: FinishedRequest) => void;

const MS_PER_S = 1000;
// Hundredths of a millisecond: finer is noise, coarser hides the fast routes' differences.
const MS_ROUNDING = 100;

export function createRequestObserver(logger: Logger, metrics: RequestMetrics | undefined): ObserveRequest {
  const logLines = logger.isLevelEnabled('info');
  return (finished) => {
    const ms = performance.now() - finished.startedAt;
    metrics?.finished(finished.route, finished.status, ms / MS_PER_S, finished.credits);
    if (!logLines) return;
    const token = finished.authorization === '' ? undefined : bearerToken(finished.authorization);
    logger.info({
      req_id: finished.requestId,
      route: finished.route,
      status: finished.status,
      ms: Math.round(ms * MS_ROUNDING) / MS_ROUNDING,
      key: token === undefined ? undefined : displayPrefixOf(token),
      credits: finished.credits,
    }, 'request');
  };
}
