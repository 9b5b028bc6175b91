// A HEAD request is answered as its GET would be, without the body (RFC 9110 9.3.2): the same
// status and headers, Content-Length the GET's body length. A body after a HEAD reply would be
// read by a keep-alive client as the next response, so the handler's response is wrapped and its
// body-writing calls write the length instead.
import type { HttpResponse, RecognizedString } from 'uWebSockets.js';

/** The bytes of a body as uWS would send it. */
function byteLength(body: RecognizedString | undefined): number {
  if (body === undefined) return 0;
  if (typeof body === 'string') return Buffer.byteLength(body);
  return body.byteLength;
}

/**
 * Ends the reply with `length` as its Content-Length and no body. This uWS build (v20.30) aborts
 * the process when endWithoutBody is given the length itself and ignores its close flag (the next
 * request on the connection is served), so the header is written by hand; a reply that must close
 * the connection (a refusal) ends with an empty body instead, which closes it.
 */
function endHead(res: HttpResponse, length: number, closeConnection: boolean | undefined): void {
  if (closeConnection) {
    res.end(undefined, true);
    return;
  }
  res.writeHeader('Content-Length', String(length));
  res.endWithoutBody();
}

/** `res` for a HEAD request: end() and tryEnd() send the headers and the length, never the body. */
export function headOnly(res: HttpResponse): HttpResponse {
  return new Proxy(res, {
    get(target, property) {
      if (property === 'end') {
        return (body?: RecognizedString, closeConnection?: boolean) => {
          endHead(target, byteLength(body), closeConnection);
          return target;
        };
      }
      if (property === 'tryEnd') {
        return (_chunk: RecognizedString, totalSize: number) => {
          endHead(target, totalSize, false);
          return [true, true];
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
