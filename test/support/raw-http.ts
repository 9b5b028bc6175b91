// HTTP/1.1 over a raw socket, for tests that must write exactly the bytes a hostile or unusual
// client would: sends a payload (in parts, with gaps, if asked) and reads back the responses.
import net from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

export interface Exchange {
  responses: RawResponse[];
  /** Everything received, as latin1 text. */
  raw: string;
  /** The server closed the connection (before `waitMs`). */
  closed: boolean;
  /** Neither the expected responses nor a close came within `waitMs`. */
  timedOut: boolean;
}

export interface ExchangeOptions {
  /** Resolve as soon as this many complete responses arrived (default: wait for close or waitMs). */
  expect?: number;
  waitMs?: number;
  /** Milliseconds between parts. */
  gapMs?: number;
  /** Indexes (0-based, in order) of responses that answer a HEAD: they have no body. */
  heads?: number[];
}

/** The complete responses at the start of `text`. */
export function parseResponses(text: string, heads: number[] = []): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end < 0) return responses;
    const [statusLine, ...lines] = text.slice(at, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    let bodyStart = end + 4;
    let body = '';
    if (status >= 100 && status < 200) {
      at = bodyStart; // an interim response (100 Continue): the final one follows
      continue;
    }
    if (heads.includes(responses.length) || status === 204 || status === 304) {
      // no body
    } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      let p = bodyStart;
      for (;;) {
        const lineEnd = text.indexOf('\r\n', p);
        if (lineEnd < 0) return responses;
        const size = parseInt(text.slice(p, lineEnd), 16);
        if (Number.isNaN(size)) return responses;
        if (text.length < lineEnd + 2 + size + 2) return responses;
        body += text.slice(lineEnd + 2, lineEnd + 2 + size);
        p = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      bodyStart = p;
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (text.length < bodyStart + length) return responses;
      body = text.slice(bodyStart, bodyStart + length);
      bodyStart += length;
    } else {
      return responses; // a body to the close: not complete until then
    }
    responses.push({ status, headers, body });
    at = bodyStart;
  }
}

export function exchange(port: number, payload: string | Buffer | (string | Buffer)[], options: ExchangeOptions = {}): Promise<Exchange> {
  const { expect, waitMs = 2000, gapMs = 0, heads = [] } = options;
  const parts = Array.isArray(payload) ? payload : [payload];
  return new Promise((resolve) => {
    let raw = '';
    let settled = false;
    const socket = net.connect(port, '127.0.0.1', async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        if (settled || socket.destroyed) return;
        socket.write(part);
      }
    });
    const finish = (closed: boolean, timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(raw, heads), raw, closed, timedOut });
    };
    const timer = setTimeout(() => finish(false, true), waitMs);
    socket.on('data', (d) => {
      raw += d.toString('latin1');
      if (expect !== undefined && parseResponses(raw, heads).length >= expect) finish(false, false);
    });
    socket.on('error', () => finish(true, false));
    socket.on('close', () => finish(true, false));
  });
}
