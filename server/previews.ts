// Preview links: GET /previews/{id}.mp3?exp=..&sig=.. with no key and no credit. The signature is
// an HMAC-SHA256 of "id.exp" with the preview secret, so links cannot be forged or extended;
// expired or wrong signatures are 403. Range requests (206/416), ETag and Cache-Control.
import crypto from 'node:crypto';

export const PREVIEW_LINK_SECONDS = 24 * 60 * 60;

export function previewSignature(secret: string, trackId: string, expires: number): string {
  return crypto.createHmac('sha256', secret).update(`${trackId}.${expires}`).digest('base64url');
}

export function signedPreviewUrl(baseUrl: string, secret: string, trackId: string, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + PREVIEW_LINK_SECONDS;
  return `${baseUrl}/api/external/v1/previews/${trackId}.mp3?exp=${expires}&sig=${previewSignature(secret, trackId, expires)}`;
}

export type SignatureCheck = { ok: true; expires: number } | { ok: false; reason: string };

export function checkPreviewSignature(secret: string, trackId: string, exp: string | null, sig: string | null, now = Date.now()): SignatureCheck {
  if (!exp || !sig) return { ok: false, reason: 'preview links need exp and sig query parameters (use the preview_url of a search result)' };
  if (!/^\d{1,12}$/.test(exp)) return { ok: false, reason: 'exp must be a Unix time in seconds' };
  const expected = Buffer.from(previewSignature(secret, trackId, Number(exp)));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid preview signature' };
  if (Number(exp) * 1000 < now) return { ok: false, reason: 'preview link expired; search again for a fresh preview_url' };
  return { ok: true, expires: Number(exp) };
}

export type ByteRange = { start: number; end: number } | 'unsatisfiable' | undefined;

/** Parses a single "bytes=" range (RFC 9110); multiple ranges are served as the whole file. */
export function parseRange(header: string, size: number): ByteRange {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(size - 1, Number(match[2]));
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}
