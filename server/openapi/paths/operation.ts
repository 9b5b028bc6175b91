// Builds operation objects the same way for every endpoint: the errors each kind of request can
// end with are added here, once, so no endpoint's list forgets the ones every request can get.
import type { OperationObject, ParameterObject, RequestBodyObject, ResponseObject } from '../types.ts';
import { ERROR_STATUS, errorResponse, type ErrorCode } from '../errors.ts';
import { LIMIT_HEADERS, responseHeaders } from '../headers.ts';

export interface OperationSpec {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /** Credits a success costs (shown in the description and as x-credits). */
  cost: number;
  parameters?: ParameterObject[];
  requestBody?: RequestBodyObject;
  /** The success responses, by status. */
  success: Record<string, ResponseObject>;
  /** The endpoint's own errors, beyond those every request of its kind can get. */
  errors: ErrorCode[];
}

/** Errors after the key was admitted carry the rate-limit headers; a 500 or 503 may come before. */
const KEYED_COMMON: ErrorCode[] = ['unauthorized', 'rate_limited', 'headers_too_large', 'internal_error', 'service_unavailable'];
const PUBLIC_COMMON: ErrorCode[] = ['headers_too_large', 'internal_error', 'service_unavailable'];

function limitsOf(code: ErrorCode): 'required' | 'optional' | 'none' {
  if (code === 'unauthorized' || code === 'headers_too_large') return 'none';
  if (code === 'internal_error' || code === 'service_unavailable') return 'optional';
  return 'required';
}

function errorResponses(codes: ErrorCode[], keyed: boolean): Record<string, ResponseObject> {
  const responses: Record<string, ResponseObject> = {};
  for (const code of [...new Set(codes)].sort((a, b) => ERROR_STATUS[a] - ERROR_STATUS[b])) {
    responses[String(ERROR_STATUS[code])] = errorResponse(code, keyed ? limitsOf(code) : 'none');
  }
  return responses;
}

function byStatus(responses: Record<string, ResponseObject>): Record<string, ResponseObject> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

function costLine(cost: number): string {
  return cost === 0 ? '**Free** (0 credits).' : `**Costs ${cost} credit${cost === 1 ? '' : 's'}**, charged only on success.`;
}

/** An endpoint under the API key: rate-limited, with spec 8.3's headers on its successes. */
export function keyedOperation(spec: OperationSpec): OperationObject {
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: `${costLine(spec.cost)} ${spec.description}`,
    tags: [spec.tag],
    'x-credits': spec.cost,
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
    responses: byStatus({ ...errorResponses([...spec.errors, ...KEYED_COMMON], true), ...spec.success }),
  };
}

/** An endpoint without a key (previews, health, the document itself). */
export function publicOperation(spec: Omit<OperationSpec, 'cost'>): OperationObject {
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: `**No key, free.** ${spec.description}`,
    tags: [spec.tag],
    security: [],
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    // A success may share a status with a common error (health's 503 is its own body): it wins.
    responses: byStatus({ ...errorResponses([...spec.errors, ...PUBLIC_COMMON], false), ...spec.success }),
  };
}

/** A JSON success of a keyed endpoint: the body schema, the limit headers, an example. */
export function keyedJson(description: string, schemaName: string, example: unknown, extraHeaders: string[] = []): ResponseObject {
  return {
    description,
    headers: responseHeaders(['X-Request-Id', ...LIMIT_HEADERS], extraHeaders),
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName}` }, example } },
  };
}

export function jsonBody(schemaName: string, examples: Record<string, { summary: string; value: unknown }>): RequestBodyObject {
  return { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName}` }, examples } } };
}

export function integerQuery(name: string, description: string, min: number, max: number, fallback: number): ParameterObject {
  return { name, in: 'query', required: false, description, schema: { type: 'integer', minimum: min, maximum: max, default: fallback } };
}

export const trackIdPath: ParameterObject = {
  name: 'id', in: 'path', required: true, description: 'A track id from search results.',
  schema: { type: 'string' }, example: 'trk_3f9a1c0b7d2e4a68',
};
