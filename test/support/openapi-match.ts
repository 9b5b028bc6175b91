// Which response object of the OpenAPI document describes a request's reply: the operation the
// method and path name (paths are relative to the document's server, or to a path's own
// `servers`), or the document's UnknownPath / MethodNotAllowed responses when there is none.
import type { OpenApiDocument, OperationObject, PathItemObject, ResponseObject } from '../../server/openapi/types.ts';

export interface Matched {
  /** "GET /me", or "unknown path" / "wrong method". */
  operation: string;
  response: ResponseObject | undefined;
}

interface CompiledPath {
  template: string;
  pattern: RegExp;
  item: PathItemObject;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** "/tracks/{id}/similar" -> /^\/api\/external\/v1\/tracks\/[^/]+\/similar$/ under its server. */
function compilePath(document: OpenApiDocument, template: string, item: PathItemObject): CompiledPath {
  const server = (item.servers ?? document.servers)[0].url.replace(/\/$/, '');
  const source = escapeRegExp(server + template).replace(/\\\{[^}]+\\\}/g, '[^/]+');
  return { template, pattern: new RegExp(`^${source}$`), item };
}

export function createMatcher(document: OpenApiDocument) {
  const paths = Object.entries(document.paths).map(([template, item]) => compilePath(document, template, item));
  return (method: string, urlPath: string, status: number): Matched => {
    const found = paths.find((p) => p.pattern.test(urlPath));
    if (!found) return { operation: 'unknown path', response: document.components.responses.UnknownPath };
    const operation = found.item[method.toLowerCase() as 'get' | 'post'] as OperationObject | undefined;
    if (!operation) return { operation: 'wrong method', response: document.components.responses.MethodNotAllowed };
    return { operation: `${method.toUpperCase()} ${found.template}`, response: operation.responses[String(status)] };
  };
}

/** Every operation of the document as "METHOD /template". */
export function operationsOf(document: OpenApiDocument): string[] {
  return Object.entries(document.paths).flatMap(([template, item]) =>
    (['get', 'post'] as const).filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${template}`));
}
