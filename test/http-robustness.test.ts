// What clients send that is wrong: unknown paths, wrong methods, oversized and malformed bodies,
// odd headers and raw garbage. Each gets a clear error; the server keeps serving.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { ingestSignals } from './support/ingest.ts';
import { drumPattern } from './support/synth.ts';
import { signedPreviewUrl } from '../server/previews.ts';

let server: TestServer;
let key: string;
before(async () => {
  server = await startTestServer();
  key = await server.newKey('pro');
});
after(() => server.stop());

function assertError(response: Awaited<ReturnType<typeof call>>, status: number, code: string) {
  assert.equal(response.status, status);
  assert.equal(response.body.code, code);
  assert.equal(typeof response.body.error, 'string');
  assert.equal(typeof response.body.message, 'string');
  assert.equal(response.body.request_id, response.headers.get('x-request-id'));
}

/**
 * Sends raw bytes and returns whatever the server answers before closing (or after a pause).
 * Parts are written 50 ms apart, so the server reads them separately.
 */
function raw(payload: string | Buffer | string[], waitMs = 300): Promise<string> {
  const { port } = new URL(server.base);
  const parts = Array.isArray(payload) ? payload : [payload];
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect(Number(port), '127.0.0.1', async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, 50));
        socket.write(part);
      }
    });
    socket.on('data', (d) => (answer += d));
    socket.on('error', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, waitMs);
  });
}

test('unknown path is a JSON 404 and needs no key', async () => {
  assertError(await call(server.base, 'GET', '/nope'), 404, 'not_found');
  assertError(await call(server.base, 'GET', `${API}/tracks`, key), 404, 'not_found');
  assertError(await call(server.base, 'GET', '/api/external/v2/me', key), 404, 'not_found');
});

test('wrong method is 405 with Allow', async () => {
  const response = await call(server.base, 'DELETE', `${API}/me`, key);
  assertError(response, 405, 'method_not_allowed');
  assert.equal(response.headers.get('allow'), 'GET, HEAD');
  assert.equal((await call(server.base, 'GET', `${API}/_test/paid`, key)).status, 405);
});

test('body over 64 KiB is 413, by Content-Length or by counting, and costs nothing', async () => {
  const big = JSON.stringify({ pad: 'x'.repeat(70 * 1024) });
  assertError(await call(server.base, 'POST', `${API}/_test/paid`, key, big), 413, 'payload_too_large');
  // Chunked: no Content-Length, the limit is enforced while reading.
  const chunked = await fetch(`${server.base}${API}/_test/paid`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: new ReadableStream({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(10 * 1024)));
        controller.close();
      },
    }),
    duplex: 'half',
  } as RequestInit).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() }));
  assertError(chunked, 413, 'payload_too_large');
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining, 50000);
});

test('malformed or non-object JSON is 400 invalid_parameters', async () => {
  for (const body of ['{', 'not json', '[1,2]', '"text"', 'null', '', '{"a":1}}']) {
    const response = await call(server.base, 'POST', `${API}/_test/paid`, key, body);
    assertError(response, 400, 'invalid_parameters');
  }
});

test('garbage on the socket and odd headers never crash the server', async () => {
  await raw('GARBAGE\r\n\r\n');
  await raw(Buffer.from([0, 1, 2, 255, 254, 13, 10, 13, 10]));
  await raw(`GET ${API}/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'\u00ff'.repeat(50)}\r\n\r\n`);
  await raw(`GET ${API}/me HTTP/1.1\r\nHost: x\r\nAuthorization: ${'B'.repeat(6000)}\r\n\r\n`);
  await raw(`POST ${API}/_test/paid HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: 100\r\n\r\n{"a":`, 200);
  await raw(`POST ${API}/_test/paid HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`);
  await raw(`GET ${API}/usage?limit=%ZZ&offset=%00 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  const answer = await raw(`GET ${API}/me HTTP/1.1\r\nHost: x\r\nAuthorization: bearer   ${key}  \r\n\r\n`);
  assert.match(answer, /^HTTP\/1.1 200/);
  const health = await call(server.base, 'GET', '/healthz');
  assert.equal(health.status, 200);
  assert.equal(health.body.database.status, 'ok');
  assert.equal(health.body.workers.status, 'ok');
  assert.ok(health.body.workers.threads >= 1);
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).status, 200);
});

test('a Range outside the preview is a 416 in the error shape of every other error, with Content-Range', async () => {
  await ingestSignals({
    sql: server.service.database.sql,
    pool: server.service.engine,
    storage: server.service.storage,
    tracks: [{ file: 'short.mp3', signal: drumPattern(100, 12), metadata: { title: 'Short', artist: 'Test' } }],
  });
  const [track] = await server.service.database.sql`SELECT id FROM tracks WHERE source_file = 'short.mp3'`;
  const url = signedPreviewUrl(server.base, server.service.previewSecret, track.id);
  const size = (await (await fetch(url)).arrayBuffer()).byteLength;
  const response = await fetch(url, { headers: { range: `bytes=${size + 10}-` } });
  assertError({ status: response.status, headers: response.headers, body: await response.json() }, 416, 'range_not_satisfiable');
  assert.equal(response.headers.get('content-range'), `bytes */${size}`);
  assert.equal(response.headers.get('content-type'), 'application/json');
});

test('a request head over 4 KiB is a 431 in the error shape; uWS drops a longer one that arrives in pieces', async () => {
  // A GET /me whose head (request line, headers, blank line) is exactly `size` bytes.
  const headOf = (size: number) => {
    const bare = `GET ${API}/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Pad: \r\n\r\n`;
    return bare.replace('X-Pad: ', `X-Pad: ${'a'.repeat(size - bare.length)}`);
  };
  const inTwo = (head: string) => [head.slice(0, 1000), head.slice(1000)];
  assert.equal(headOf(4096).length, 4096);
  assert.match(await raw(headOf(4096)), /^HTTP\/1.1 200 /);
  assert.match(await raw(inTwo(headOf(4096))), /^HTTP\/1.1 200 /, 'uWS buffers up to 4 KiB of a head that comes in pieces');
  for (const size of [4097, 20 * 1024]) {
    const answer = await raw(headOf(size));
    assert.match(answer, /^HTTP\/1.1 431 Request Header Fields Too Large\r\n/, `${size} bytes`);
    const [head, json] = answer.split('\r\n\r\n');
    const body = JSON.parse(json);
    assert.equal(body.code, 'headers_too_large');
    assert.equal(body.error, 'Request Header Fields Too Large');
    assert.match(body.message, /4096/);
    assert.equal(`X-Request-Id: ${body.request_id}`, head.split('\r\n').find((line) => /^x-request-id:/i.test(line)));
  }
  // In pieces, a head over 4 KiB never reaches us: this uWS build closes the connection, no reply.
  assert.equal(await raw(inTwo(headOf(4097))), '');
  // 48 header fields is as many as uWS parses (with a 49th it waits for its idle timeout and closes).
  const fields = Array.from({ length: 46 }, (_, i) => `X-Field-${i}: ${i}\r\n`).join('');
  assert.match(await raw(`GET ${API}/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${fields}\r\n`), /^HTTP\/1.1 200 /);
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).status, 200);
});

test('every response has an X-Request-Id; ids differ', async () => {
  const a = await call(server.base, 'GET', `${API}/me`, key);
  const b = await call(server.base, 'GET', '/healthz');
  assert.ok(a.headers.get('x-request-id'));
  assert.ok(b.headers.get('x-request-id'));
  assert.notEqual(a.headers.get('x-request-id'), b.headers.get('x-request-id'));
});
