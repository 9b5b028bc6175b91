// GET /docs: the API reference, rendered in the browser by Scalar from our OpenAPI document.
// Everything comes from this origin: the page, Scalar's bundle, its start-up script and the
// document; the Content-Security-Policy allows nothing else, so a font, a telemetry beacon or a
// proxy Scalar might reach for is refused by the browser rather than leaking requests.
import { API_BASE } from '../http/app.ts';
import type { Reply } from '../http/reply.ts';

export const DOCS_PATH = '/docs';
export const DOCS_BUNDLE_PATH = '/docs/scalar.js';
export const DOCS_INIT_PATH = '/docs/init.js';
export const OPENAPI_PATH = `${API_BASE}/openapi.json`;

/**
 * Scripts, fonts, images, connections: this origin only. Styles also allow inline ones: Scalar
 * (Vue) sets style attributes and adds <style> elements at run time, which CSP counts as inline
 * (a nonce would cover only the elements it knows of). Inline styles cannot run code or load
 * anything from elsewhere under this policy.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// No favicon request (it would be a 404): an empty data: icon.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Music Licensing API reference</title>
</head>
<body>
<div id="app"></div>
<script src="${DOCS_BUNDLE_PATH}"></script>
<script src="${DOCS_INIT_PATH}"></script>
</body>
</html>
`;

export function docsPageReply(): Reply {
  return {
    status: 200,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'Cache-Control': 'no-cache' },
    body: PAGE,
  };
}

/**
 * Scalar's configuration: the document from this server, "try it" against this origin (the
 * document's servers are relative), and every option that would reach a third party turned off:
 * fonts (fonts.scalar.com), telemetry, the AI agent, MCP, the developer tools bar.
 */
export const DOCS_INIT_SCRIPT = `Scalar.createApiReference('#app', ${JSON.stringify({
  url: OPENAPI_PATH,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  persistAuth: false,
  defaultOpenAllTags: true, // a small document: every operation listed in the sidebar at once
  hideClientButton: false,
  authentication: { preferredSecurityScheme: 'bearerAuth' },
})});
`;
