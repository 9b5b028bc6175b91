// The recommended deployment, deploy/nginx.conf in front of the API, answers at once every
// unusual request the API's HTTP library never answers (see docs/operations.md, "HTTP limits and
// the nginx front"): HTTP/1.0, many header fields, absolute-form targets, folded header lines, NUL
// bytes, unknown methods, pipelined requests. Debian's nginx (apt-get install nginx).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { startNginxFront, type NginxFront } from './support/nginx-front.ts';
import { exchange, type ExchangeOptions } from './support/raw-http.ts';
import { API } from './support/http.ts';

// A complete request gets its answer (or the connection closed) well within this.
const HANG_MS = 2000;

let server: TestServer;
let front: NginxFront;
let key: string;
before(async () => {
  server = await startTestServer();
  front = await startNginxFront([`127.0.0.1:${new URL(server.base).port}`]);
  key = await server.newKey('pro');
});
after(async () => {
  await front?.stop();
  await server.stop();
});

const through = (payload: string | string[], options: ExchangeOptions = {}) => exchange(front.port, payload, { waitMs: HANG_MS, ...options });
const direct = (payload: string, options: ExchangeOptions = {}) => exchange(Number(new URL(server.base).port), payload, { waitMs: HANG_MS, ...options });
const me = (extra = '', version = '1.1', target = `${API}/me`) => `GET ${target} HTTP/${version}\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${extra}\r\n`;
const fields = (n: number) => Array.from({ length: n }, (_, i) => `X-Field-${i}: ${i}\r\n`).join('');

async function assertAnswered(payload: string, status: number, what: string) {
  const answer = await through(payload, { expect: 1 });
  assert.ok(!answer.timedOut, `${what}: no answer within ${HANG_MS} ms`);
  assert.equal(answer.responses[0]?.status, status, `${what}: ${answer.raw.slice(0, 400)}`);
  // nginx's own 400, 414 and 505 are HTML: it cannot run an error page for a line it could not parse.
  if (status < 400 || [400, 414, 505].includes(status)) return answer.responses[0];
  assert.equal(answer.responses[0].headers['content-type'], 'application/json', `${what}: ${answer.raw.slice(0, 400)}`);
  const body = JSON.parse(answer.responses[0].body);
  assert.equal(typeof body.code, 'string', what);
  assert.equal(typeof body.message, 'string', what);
  assert.match(body.request_id, /^req_[A-Za-z0-9_-]+$/, what);
  assert.equal(answer.responses[0].headers['x-request-id'], body.request_id, what);
  return answer.responses[0];
}

test('requests the HTTP library alone never answers are answered at once through the front', async () => {
  // Each of these hangs about 10 s on the API's own port, then closes unanswered.
  assert.ok((await direct(me('', '1.0'))).timedOut, 'HTTP/1.0 to the API itself hangs (the library)');
  await assertAnswered(me(fields(60)), 200, '60 header fields');
  await assertAnswered(me(fields(200)), 200, '200 header fields');
  await assertAnswered(me('', '1.0'), 200, 'HTTP/1.0');
  await assertAnswered(`GET ${API}/me HTTP/1.0\r\nAuthorization: Bearer ${key}\r\n\r\n`, 200, 'HTTP/1.0 without Host');
  await assertAnswered(me('', '1.1', `http://x${API}/me`), 200, 'absolute-form target');
  await assertAnswered(me('X-Note: a\0b\r\n'), 400, 'NUL in a header value');
  await assertAnswered(me('X-Note: a\r\n folded\r\n'), 400, 'obs-folded header line');
  await assertAnswered(me('', '1.1', `${API}/tracks/1;DROP TABLE tracks/similar`), 400, 'unencoded spaces in the target');
  await assertAnswered(`GET ${API}/me HTTP/2.0\r\nHost: x\r\n\r\n`, 505, 'HTTP/2.0 in a request line');
  await assertAnswered(me(`X-Big: ${'b'.repeat(5000)}\r\n`), 431, 'a header line over 4 KiB');
  await assertAnswered(me('', '1.1', `${API}/tracks/${'a'.repeat(5000)}/similar`), 414, 'a request line over 4 KiB');
});

test('framing the library reads loosely or never answers is refused or made plain at the front', async () => {
  const q = '{"query":"calm"}';
  const size = q.length.toString(16);
  const payer = await server.newKey('pro'); // a search answered costs a credit: not the key the other tests count
  const search = (head: string, body: string) => `POST ${API}/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${payer}\r\nContent-Type: application/json\r\n${head}\r\n${body}`;
  const cases: [string, string, number][] = [
    ['a chunk extension (closed, unanswered, by the library)', search('Transfer-Encoding: chunked\r\n', `${size};name=value\r\n${q}\r\n0\r\n\r\n`), 200],
    ['Transfer-Encoding chunked, then identity (read as chunked by the library)', search('Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n', `${size}\r\n${q}\r\n0\r\n\r\n`), 400],
    ['an unknown transfer coding before chunked', search('Transfer-Encoding: gzip, chunked\r\n', `${size}\r\n${q}\r\n0\r\n\r\n`), 501],
    ['HTTP/1.1 without Host', `GET ${API}/me HTTP/1.1\r\nAuthorization: Bearer ${key}\r\n\r\n`, 400],
    ['two Host headers', `GET ${API}/me HTTP/1.1\r\nHost: a\r\nHost: b\r\nAuthorization: Bearer ${key}\r\n\r\n`, 400],
    ['a space before a header\'s colon', `POST ${API}/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length : ${q.length}\r\n\r\n${q}`, 400],
    ['an empty line before the request line', `\r\n${me()}`, 200],
    ['a control byte in a header the API does not read', me('X-Note: a\x01b\r\n'), 200],
    ['Expect: 100-continue with a body over 64 KiB', `POST ${API}/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nExpect: 100-continue\r\nContent-Length: 70000\r\n\r\n`, 413],
  ];
  for (const [what, payload, status] of cases) {
    const answer = await through(payload, { expect: 1 });
    assert.ok(!answer.timedOut, `${what}: no answer within ${HANG_MS} ms`);
    assert.equal(answer.responses[0]?.status, status, `${what}: ${answer.raw.slice(0, 300)}`);
  }
});

test('unknown methods and known ones the path does not serve are a 405 with Allow', async () => {
  for (const method of ['FOO', 'PROPFIND', 'BREW']) {
    const response = await assertAnswered(`${method} ${API}/me HTTP/1.1\r\nHost: x\r\n\r\n`, 405, method);
    assert.match(response.headers.allow, /GET/);
  }
  const response = await assertAnswered(`DELETE ${API}/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`, 405, 'DELETE');
  assert.equal(response.headers.allow, 'GET, HEAD');
});

test('pipelined requests are answered in order', async () => {
  const answer = await through(me() + me() + `GET /nope HTTP/1.1\r\nHost: x\r\n\r\n` + me(), { expect: 4 });
  assert.deepEqual(answer.responses.map((r) => r.status), [200, 200, 404, 200], answer.raw.slice(0, 500));
  // The API alone closes the connection when a second request arrives while the first is pending
  // (here: a new key's first admission, a database round trip).
  const fresh = await server.newKey('pro');
  const meOf = (k: string) => `GET ${API}/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${k}\r\n\r\n`;
  const alone = await direct(meOf(fresh) + meOf(fresh), { expect: 2 });
  assert.ok(alone.responses.length < 2, 'the library drops pipelined requests');
  // A HEAD in the pipeline keeps it in step.
  const withHead = await through(`HEAD ${API}/me HTTP/1.1\r\nHost: x\r\n\r\n` + me(), { expect: 2, heads: [0] });
  assert.deepEqual(withHead.responses.map((r) => r.status), [401, 200], withHead.raw);
});

test('conflicting Content-Length headers are a 400 at the front; bodies over 64 KiB a 413', async () => {
  const body = '{"delay_ms":0}';
  await assertAnswered(`POST ${API}/_test/paid HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${body.length}\r\nContent-Length: 3\r\n\r\n${body}`, 400, 'two Content-Length');
  const big = JSON.stringify({ pad: 'x'.repeat(70 * 1024) });
  await assertAnswered(`POST ${API}/_test/paid HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${big.length}\r\n\r\n${big}`, 413, 'body over 64 KiB');
  const paid = await through(`POST ${API}/_test/paid HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`, { expect: 1 });
  assert.equal(paid.responses[0]?.status, 200, paid.raw);
  assert.equal(paid.responses[0].headers['x-credits-remaining'], '49999');
});
