// The developer surface without a key: the OpenAPI document, the reference page and its assets.
import { immediate, type Route } from '../http/app.ts';
import { jsonTextReply, type Reply } from '../http/reply.ts';
import { openApiDocument } from '../openapi/document.ts';
import { DOCS_BUNDLE_PATH, DOCS_INIT_PATH, DOCS_INIT_SCRIPT, DOCS_PATH, docsPageReply, OPENAPI_PATH } from '../docs/docs-page.ts';
import { scalarBundle } from '../docs/scalar-bundle.ts';

// The bundle changes only with an npm install, which restarts the server.
const ASSET_CACHE = 'public, max-age=3600';

function script(body: string | Uint8Array): Reply {
  return { status: 200, headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': ASSET_CACHE }, body };
}

export function docsRoutes(): Route[] {
  const documentJson = JSON.stringify(openApiDocument);
  return [
    { method: 'get', path: OPENAPI_PATH, handler: immediate(() => jsonTextReply(documentJson)) },
    { method: 'get', path: DOCS_PATH, handler: immediate(() => docsPageReply()) },
    { method: 'get', path: DOCS_BUNDLE_PATH, handler: immediate(() => script(scalarBundle())) },
    { method: 'get', path: DOCS_INIT_PATH, handler: immediate(() => script(DOCS_INIT_SCRIPT)) },
  ];
}
