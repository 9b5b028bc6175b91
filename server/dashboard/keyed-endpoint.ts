// An API endpoint run for the dashboard with one of the account's keys, chosen by its id: the
// same request pipeline as the API (admission and rate limits, validation, the charge with its
// usage record and license), so a clip downloaded in the dashboard is billed exactly as one
// downloaded with the key. The dashboard never holds a key's secret: the key is admitted by the
// hash stored for it (Admitter.admitStoredKey).
import type { HttpResponse } from 'uWebSockets.js';
import type { Endpoint, EndpointDeps } from '../http/endpoint.ts';
import { runPipeline } from '../http/pipeline.ts';
import { ApiError, invalidParameters } from '../http/api-error.ts';
import type { Admitter } from '../../billing/admission.ts';
import type { Session } from '../../billing/sessions.ts';
import { accountKeyHash } from '../../billing/account-keys.ts';
import type { DashboardRequest, Sent } from './dashboard-route.ts';
import { DASHBOARD_HEADERS } from './headers.ts';

/** The pipeline's admitter for the dashboard: its "authorization" is the hex of the stored key hash. */
function storedKeyAdmitter(admitter: Admitter): Admitter {
  return { ...admitter, admit: (hex) => admitter.admitStoredKey(Buffer.from(hex, 'hex')), likely: () => undefined };
}

/** The response with the dashboard's headers written after every status line the pipeline writes. */
function withDashboardHeaders(res: HttpResponse): HttpResponse {
  return new Proxy(res, {
    get(target, property) {
      if (property === 'writeStatus') {
        return (status: string) => {
          target.writeStatus(status);
          for (const name in DASHBOARD_HEADERS) target.writeHeader(name, DASHBOARD_HEADERS[name]);
          return target;
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The key_id query parameter: which of the account's keys pays. */
function keyIdOf(query: URLSearchParams): number {
  const raw = query.getAll('key_id');
  if (raw.length !== 1) throw invalidParameters(raw.length === 0 ? 'key_id is required: the id of one of your API keys (GET /dashboard/api/keys)' : 'query parameter "key_id" given more than once');
  if (!/^\d{1,15}$/.test(raw[0])) throw invalidParameters(`key_id must be a key's id (a positive integer), got "${raw[0]}"`);
  return Number(raw[0]);
}

export function keyedEndpoint(deps: EndpointDeps, endpoint: Endpoint) {
  const keyedDeps: EndpointDeps = { ...deps, admitter: storedKeyAdmitter(deps.admitter) };
  return async (request: DashboardRequest, session: Session | undefined): Promise<Sent> => {
    const startedAt = performance.now();
    const requestedAt = new Date();
    const keyId = keyIdOf(request.query);
    // Another account's key is "not found", word for word as a key id that names none.
    const hash = await accountKeyHash(deps.ledger.sql, session!.accountId, keyId);
    if (!hash) throw new ApiError(404, 'not_found', `no API key ${keyId} in this account`);
    const query = new URLSearchParams(request.query);
    query.delete('key_id');
    const done = deps.inFlight.begin();
    try {
      const outcome = await runPipeline(keyedDeps, endpoint, withDashboardHeaders(request.res), {
        authorization: hash.toString('hex'), idempotencyHeader: '', query, params: request.params, body: request.body,
        requestId: request.requestId, client: request.client, startedAt, requestedAt,
      });
      return { sent: outcome.status };
    } finally {
      done();
    }
  };
}
