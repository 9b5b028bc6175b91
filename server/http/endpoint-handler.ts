// The uWS handler of an API endpoint: reads everything it needs from the request at once (uWS
// invalidates req at the first await) and hands it to the pipeline (pipeline.ts).
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { CLIENT_CLOSED, type Finish } from './finish.ts';
import type { Endpoint, EndpointDeps } from './endpoint.ts';
import { MAX_BODY_BYTES, readBody } from './body.ts';
import { watchClient } from './client-watch.ts';
import { newRequestId } from './request-id.ts';
import { runPipeline } from './pipeline.ts';
import { pathParameter } from './path-parameter.ts';

const INTERNAL_ERROR = 500;

export function endpointHandler(deps: EndpointDeps, endpoint: Endpoint) {
  return (res: HttpResponse, req: HttpRequest, finish: Finish): void => {
    const startedAt = performance.now();
    const requestedAt = new Date();
    const requestId = newRequestId();
    const client = watchClient(res);

    // Everything from req must be read now: it is invalid after the first await.
    const authorization = req.getHeader('authorization');
    const idempotencyHeader = endpoint.idempotency ? req.getHeader('idempotency-key') : '';
    const query = new URLSearchParams(req.getQuery() ?? '');
    const params: string[] = [];
    for (let i = 0; i < (endpoint.paramCount ?? 0); i++) params.push(pathParameter(req, i));
    const body = endpoint.jsonBody ? readBody(res, req.getHeader('content-length'), client, MAX_BODY_BYTES, req.getHeader('transfer-encoding')) : undefined;
    body?.catch(() => {}); // consumed by the pipeline; avoids an unhandled rejection if auth fails first

    const done = deps.inFlight.begin();
    runPipeline(deps, endpoint, res, { authorization, idempotencyHeader, query, params, body, requestId, client, startedAt, requestedAt })
      .then(
        (outcome) => finish(requestId, startedAt, outcome.status, outcome.credits, authorization),
        (err) => {
          // Still one log line: a request the pipeline could not finish is never unrecorded.
          deps.log(`request ${requestId} failed while responding`, err);
          finish(requestId, startedAt, client.aborted ? CLIENT_CLOSED : INTERNAL_ERROR, 0, authorization);
        },
      )
      .finally(done);
  };
}
