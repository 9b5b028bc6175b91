// A path parameter as the client meant it: percent-decoded ("%74rk_1" is "trk_1"), as every
// route reads its ids. A malformed escape ("%zz") is left as sent, and fails as an unknown id.
import type { HttpRequest } from 'uWebSockets.js';

export function pathParameter(req: HttpRequest, index: number): string {
  const raw = req.getParameter(index) ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
