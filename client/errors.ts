// A reply that is not a success, as an exception: the API's error body (spec 7) and the status.
import type { components } from './api-types.ts';

export type ErrorBody = components['schemas']['Error'];

export class ApiRequestError extends Error {
  readonly status: number;
  /** The API's stable code (e.g. "insufficient_credits"), or "unknown" for a body that is not ours. */
  readonly code: string;
  readonly requestId: string | undefined;
  readonly body: ErrorBody | undefined;

  constructor(status: number, body: ErrorBody | undefined, requestId: string | undefined) {
    super(body ? `${status} ${body.code}: ${body.message}` : `HTTP ${status}`);
    this.name = 'ApiRequestError';
    this.status = status;
    this.code = body?.code ?? 'unknown';
    this.requestId = body?.request_id ?? requestId;
    this.body = body;
  }
}

/** Reads a failed response's body as the API's error shape, when it is one. */
export async function errorOf(response: Response): Promise<ApiRequestError> {
  let body: ErrorBody | undefined;
  try {
    const parsed = await response.json();
    if (parsed && typeof parsed.code === 'string' && typeof parsed.message === 'string') body = parsed;
  } catch {
    // Not JSON (a proxy's page): the status alone says what happened.
  }
  return new ApiRequestError(response.status, body, response.headers.get('x-request-id') ?? undefined);
}
