// Checks a real response against the OpenAPI document: its status is documented for the
// operation, every required header is there, every header present is documented and matches its
// schema, the content type is a documented one and a JSON body matches its schema (ajv, JSON
// Schema 2020-12). Records which operation and status each checked response exercised.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { HeaderObject, OpenApiDocument, ReferenceObject, ResponseObject } from '../../server/openapi/types.ts';
import { createMatcher } from './openapi-match.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const DOCUMENT_ID = 'openapi.json';

/** Headers of HTTP itself, not of the API: not listed in the document. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-type', 'uwebsockets', 'content-length']);

export interface CheckedResponse {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  body: Uint8Array;
}

export function createResponseValidator(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  // Only the components are schemas; refs into them resolve by JSON pointer. `components` itself
  // is no JSON Schema keyword: declared, so strict mode accepts it at the root.
  ajv.addKeyword('components');
  ajv.addSchema({ $id: DOCUMENT_ID, components: document.components });
  const match = createMatcher(document);
  const compiled = new Map<object, ValidateFunction>();
  const exercised = new Set<string>();

  function validatorOf(schema: object): ValidateFunction {
    let validate = compiled.get(schema);
    if (!validate) {
      // A response's schema is compiled on its own: its refs (#/components/...) point into the document.
      const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`));
      validate = ajv.compile(rebased);
      compiled.set(schema, validate);
    }
    return validate;
  }

  function schemaProblems(schema: object, value: unknown, what: string): string[] {
    const validate = validatorOf(schema);
    if (validate(value)) return [];
    return [`${what}: ${ajv.errorsText(validate.errors, { dataVar: what })}`];
  }

  function headerObject(header: HeaderObject | ReferenceObject): HeaderObject {
    if ('$ref' in header) return document.components.headers[header.$ref.split('/').pop()!];
    return header;
  }

  /** A header's value is a string on the wire; a number-typed header is compared as its number. */
  function headerProblems(name: string, header: HeaderObject, value: string): string[] {
    const asString = schemaProblems(header.schema, value, `header ${name}`);
    if (asString.length === 0) return [];
    const numeric = /^-?\d+(\.\d+)?$/.test(value) ? schemaProblems(header.schema, Number(value), `header ${name}`) : asString;
    return numeric.length === 0 ? [] : [`${numeric[0]} (value ${JSON.stringify(value)})`];
  }

  function headersProblems(response: ResponseObject, headers: Headers): string[] {
    const documented = new Map(Object.entries(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), { name, header: h }]));
    const problems: string[] = [];
    for (const [lower, { name, header }] of documented) {
      const value = headers.get(lower);
      if (value === null) {
        if ('required' in header && header.required) problems.push(`required header ${name} missing`);
      } else {
        problems.push(...headerProblems(name, headerObject(header), value));
      }
    }
    for (const [lower] of headers) {
      if (!documented.has(lower) && !TRANSPORT_HEADERS.has(lower)) problems.push(`header ${lower} is not documented for this response`);
    }
    return problems;
  }

  function bodyProblems(response: ResponseObject, headers: Headers, body: Uint8Array): string[] {
    const mediaType = (headers.get('content-type') ?? '').split(';')[0].trim();
    if (!response.content) return body.byteLength === 0 ? [] : [`a body of ${body.byteLength} bytes where none is documented`];
    const content = response.content[mediaType];
    if (!content) return [`content type "${mediaType}" is not one of ${Object.keys(response.content).join(', ')}`];
    if (!/^application\/([a-z-]+\+)?json$/.test(mediaType)) return [];
    let json: unknown;
    try {
      json = JSON.parse(Buffer.from(body).toString('utf8'));
    } catch {
      return ['the body is not JSON'];
    }
    const problems = schemaProblems(content.schema, json, 'body');
    const requestId = (json as { request_id?: unknown }).request_id;
    if (requestId !== undefined && requestId !== headers.get('x-request-id')) problems.push('body request_id differs from X-Request-Id');
    return problems;
  }

  return {
    /** The problems of one response; empty when it matches the document. */
    check(r: CheckedResponse): string[] {
      const { operation, response } = match(r.method, r.path, r.status);
      exercised.add(`${operation} ${r.status}`);
      if (!response) return [`${operation}: status ${r.status} is not documented`];
      return [...headersProblems(response, r.headers), ...bodyProblems(response, r.headers, r.body)].map((p) => `${operation} ${r.status}: ${p}`);
    },
    /** "GET /me 200", "unknown path 404", ...: what the checked responses exercised. */
    exercised: () => [...exercised].sort(),
    /** Compiles every schema of the document once (strict mode: an unknown keyword is an error). */
    compileAll(): void {
      for (const name of Object.keys(document.components.schemas)) ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${name}`);
    },
  };
}
