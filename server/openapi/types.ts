// The parts of an OpenAPI 3.1 document this folder builds, typed loosely on purpose: schemas are
// JSON Schema 2020-12 (any keyword), and the document's shape is checked where it matters, by
// ajv compiling every schema in test/openapi-conformance.test.ts and by openapi-typescript.
export type SchemaObject = { [keyword: string]: unknown };

export interface HeaderObject {
  description: string;
  schema: SchemaObject;
  required?: boolean;
  example?: unknown;
}

export interface ReferenceObject {
  $ref: string;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'header' | 'path';
  required: boolean;
  description?: string;
  schema: SchemaObject;
  example?: unknown;
}

export interface MediaTypeObject {
  schema: SchemaObject;
  example?: unknown;
  examples?: Record<string, { summary: string; value: unknown }>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | ReferenceObject>;
  content?: Record<string, MediaTypeObject>;
}

export interface RequestBodyObject {
  required: boolean;
  content: Record<string, MediaTypeObject>;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security?: unknown[];
  parameters?: ParameterObject[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject>;
  [extension: `x-${string}`]: unknown;
}

export interface PathItemObject {
  servers?: { url: string; description?: string }[];
  get?: OperationObject;
  post?: OperationObject;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string; license?: { name: string; identifier?: string } };
  servers: { url: string; description?: string }[];
  security: Record<string, string[]>[];
  tags: { name: string; description: string }[];
  paths: Record<string, PathItemObject>;
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, SchemaObject>;
    headers: Record<string, HeaderObject>;
    responses: Record<string, ResponseObject>;
  };
}
