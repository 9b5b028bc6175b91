// GET /docs: the API reference, rendered in the browser by Scalar from our OpenAPI document.
// Everything comes from this origin: the page, Scalar's bundle, its start-up script and the
// document; the Content-Security-Policy allows nothing else, so a font, a telemetry beacon or a
// proxy Scalar might reach for is refused by the browser rather than leaking requests.
import crypto from 'node:crypto';
import { API_BASE } from '../http/app.ts';
import type { Reply } from '../http/reply.ts';

export const DOCS_PATH = '/docs';
export const DOCS_BUNDLE_PATH = '/docs/scalar.js';
export const DOCS_INIT_PATH = '/docs/init.js';
export const OPENAPI_PATH = `${API_BASE}/openapi.json`;

/** Scalar injects its stylesheet as a <style> element and gives it the nonce of meta[property=csp-nonce]. */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function docsPageReply(): Reply {
  const nonce = crypto.randomBytes(16).toString('base64');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="csp-nonce" content="${nonce}">
<title>Music Licensing API reference</title>
</head>
<body>
<div id="app"></div>
<script src="${DOCS_BUNDLE_PATH}"></script>
<script src="${DOCS_INIT_PATH}"></script>
</body>
</html>
`;
  return {
    status: 200,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': contentSecurityPolicy(nonce), 'Cache-Control': 'no-store' },
    body: html,
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
  hideClientButton: false,
  authentication: { preferredSecurityScheme: 'bearerAuth' },
})});
`;
