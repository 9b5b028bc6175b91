// Message framing as RFC 9112 asks of every request our HTTP library lets through: conflicting
// Content-Length headers are refused and the connection closed (no request smuggled after a body),
// and a HEAD is answered as its GET with headers only, so a keep-alive client stays in step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { exchange as exchangeParts } from './support/raw-http.ts';

let server: TestServer;
let key: string;
before(async () => {
  server = await startTestServer();
  key = await server.newKey('pro');
});
after(() => server.stop());

/** Writes `payload` in one write; resolves with what came back and whether the server closed (within `waitMs`). */
function exchange(payload: string, waitMs = 2000): Promise<{ answer: string; closed: boolean }> {
  const { port } = new URL(server.base);
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(payload));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed: false });
    }, waitMs);
    socket.on('data', (d) => (answer += d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closed: true });
    });
  });
}

const responses = (answer: string) => answer.match(/HTTP\/1\.1 \d{3}/g) ?? [];

test('two different Content-Length headers are a 400 and the connection closes: nothing after the body is served', async () => {
  const head = (first: number, second: number) =>
    `POST ${API}/_test/paid HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${first}\r\nContent-Length: ${second}\r\n\r\n`;
  const body = '{"delay_ms":0}';
  for (const [first, second] of [[body.length, 96], [body.length, 3]]) {
    const { answer, closed } = await exchange(head(first, second) + body);
    assert.deepEqual(responses(answer), ['HTTP/1.1 400'], answer);
    assert.ok(closed, 'the connection is closed after the 400');
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.equal(json.code, 'malformed_request');
    assert.match(json.message, /Content-Length/);
  }
  // A request smuggled after the body the first length frames is never served: the connection ends.
  const smuggled = `GET ${API}/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`;
  for (const [first, second] of [[body.length, body.length + smuggled.length], [body.length + smuggled.length, body.length]]) {
    const { answer, closed } = await exchange(head(first, second) + body + smuggled);
    assert.ok(closed, 'the connection is closed');
    assert.doesNotMatch(answer, /HTTP\/1\.1 200/, answer);
  }
  // Content-Length beside Transfer-Encoding is refused too (here by the HTTP library: a close, no request).
  const both = await exchange(`POST ${API}/_test/paid HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`);
  assert.ok(both.closed);
  assert.doesNotMatch(both.answer, /200 OK/);
  // Nothing was charged by any of it.
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining, 50000);
});

test('a repeated Content-Length with the same value is one Content-Length', async () => {
  const body = '{"delay_ms":0}';
  const { answer } = await exchange(
    `POST ${API}/_test/paid HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${body.length}\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 500,
  );
  assert.deepEqual(responses(answer), ['HTTP/1.1 200'], answer);
});

test('HEAD is answered as GET with headers only, and the next request on the connection is read in step', async () => {
  // Answered at once, so a request pipelined behind it is read (uWS drops one that arrives while
  // an answer is pending): the next response must start right after the head.
  const expected: [string, number][] = [[`${API}/openapi.json`, 200], [`${API}/search`, 405], ['/nope', 404]];
  for (const [path, status] of expected) {
    const { answer } = await exchange(
      `HEAD ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\nGET /nope-too HTTP/1.1\r\nHost: x\r\n\r\n`, 500,
    );
    const [head, rest] = [answer.slice(0, answer.indexOf('\r\n\r\n')), answer.slice(answer.indexOf('\r\n\r\n') + 4)];
    assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), `HEAD ${path}: ${answer}`);
    assert.match(rest, /^HTTP\/1\.1 404 Not Found\r\n/, `HEAD ${path}: the next response starts right after the head: ${JSON.stringify(answer)}`);
    if (status === 405) assert.match(head, /\r\nAllow: POST\r\n/i);
  }
  // Answered after a round trip (the key, the database): the head and nothing after it.
  for (const path of [`${API}/me`, '/healthz']) {
    const { answer } = await exchange(`HEAD ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`, 500);
    assert.match(answer, /^HTTP\/1\.1 200 /, `HEAD ${path}: ${answer}`);
    assert.ok(answer.endsWith('\r\n\r\n'), `HEAD ${path}: no body after the head: ${JSON.stringify(answer)}`);
  }
  // The length a GET would send.
  const { answer } = await exchange(`HEAD ${API}/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n`, 500);
  const document = await fetch(`${server.base}${API}/openapi.json`);
  assert.match(answer, new RegExp(`\r\nContent-Length: ${(await document.arrayBuffer()).byteLength}\r\n`, 'i'));
  assert.match(answer, /\r\nContent-Type: application\/json/i);
  // A GET that costs a credit has no HEAD: it would be charged for nothing.
  const balance = async () => (await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining;
  const before = await balance();
  const similar = await exchange(`HEAD ${API}/tracks/trk_0000000000000000/similar HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`, 500);
  assert.match(similar.answer, /^HTTP\/1\.1 405 [^]*\r\nAllow: GET\r\n/i, similar.answer);
  assert.equal(await balance(), before);
});

test('a POST with an empty body whose head arrives in pieces is answered', async () => {
  const { port } = new URL(server.base);
  for (const length of ['Content-Length: 0\r\n', '']) {
    const head = `POST ${API}/_test/paid HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${length}\r\n`;
    const answer = await exchangeParts(Number(port), [head.slice(0, 30), head.slice(30)], { expect: 1, gapMs: 30, waitMs: 2000 });
    assert.ok(!answer.timedOut, `${JSON.stringify(length)}: no answer`);
    assert.equal(answer.responses[0]?.status, 400, answer.raw);
    assert.match(JSON.parse(answer.responses[0].body).message, /empty/);
  }
});
