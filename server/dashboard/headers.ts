// Headers on every dashboard response: this origin only (no CDN, no third party can be reached
// or frame the pages), and nothing cached, since every page and reply is one account's.

/**
 * Scripts, styles, images, audio and calls: this origin only; no inline script or style, so
 * injected markup cannot run. blob: audio for the downloaded clip played back in the page.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};
