// Bodies built to break validation rather than pass it: values nested thousands of levels deep in
// fields that must be numbers or short strings, huge arrays and strings where a number belongs.
// Each is a 400 in the error shape, with a message of bounded length naming the value's type, and
// costs nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';

let server: TestServer;
let key: string;
before(async () => {
  server = await startTestServer();
  key = await server.newKey('pro');
});
after(() => server.stop());

const DEPTH = 4114;
const nested = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const nestedObject = '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);

// Every field the issue found answering 500, as the raw JSON of a body with `value` in that field.
const FIELDS: [string, string, (value: string) => string][] = [
  ['/search', 'limit', (v) => `{"query":"x","limit":${v}}`],
  ['/search', 'offset', (v) => `{"query":"x","offset":${v}}`],
  ['/search', 'filters.min_bpm', (v) => `{"query":"x","filters":{"min_bpm":${v}}}`],
  ['/search', 'filters.energy_level', (v) => `{"query":"x","filters":{"energy_level":${v}}}`],
  ['/download-track', 'duration_seconds', (v) => `{"track_id":"t","duration_seconds":${v}}`],
  ['/download-track', 'hit_point_seconds', (v) => `{"track_id":"t","duration_seconds":10,"hit_point_seconds":${v}}`],
  ['/download-track', 'mode', (v) => `{"track_id":"t","duration_seconds":10,"mode":${v}}`],
  ['/clip-plan', 'duration_seconds', (v) => `{"track_id":"t","duration_seconds":${v}}`],
];

async function assertRefused(path: string, body: string, what: string) {
  const response = await call(server.base, 'POST', `${API}${path}`, key, body);
  assert.equal(response.status, 400, `${what}: ${JSON.stringify(response.body).slice(0, 300)}`);
  assert.equal(response.body.code, 'invalid_parameters', what);
  assert.equal(response.body.error, 'Bad Request');
  assert.equal(response.body.request_id, response.headers.get('x-request-id'));
  assert.ok(response.body.message.length < 500, `${what}: message of ${response.body.message.length} characters`);
  return response.body.message as string;
}

test('a value nested thousands of levels deep in any field is a 400 naming the nesting, not a 500', async () => {
  for (const [path, field, bodyWith] of FIELDS) {
    for (const value of [nested, nestedObject]) {
      const message = await assertRefused(path, bodyWith(value), `${path} ${field}`);
      assert.match(message, /nest/, `${path} ${field}: ${message}`);
    }
  }
  // The same depth at the top level of the body, and a body that is nothing but nesting.
  await assertRefused('/search', `{"query":"x","pad":${nested}}`, 'unknown field');
  await assertRefused('/search', nested, 'bare nesting');
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining, 50000);
});

test('a wrong value in a number or short-string field is named by type with a bounded preview', async () => {
  const longString = JSON.stringify('x'.repeat(20_000));
  const longArray = `[${Array.from({ length: 5000 }, (_, i) => i).join(',')}]`;
  const shallow = '[[[[[[[[1]]]]]]]]';
  for (const [path, field, bodyWith] of FIELDS) {
    for (const [value, type] of [[longString, 'string'], [longArray, 'array'], [shallow, 'array'], ['{"b":{"c":1}}', 'object'], ['true', 'boolean'], ['null', 'null']]) {
      const message = await assertRefused(path, bodyWith(value), `${path} ${field} = ${value.slice(0, 20)}`);
      assert.match(message, new RegExp(`\\b${field.split('.').pop()}\\b`), message);
      assert.match(message, new RegExp(`\\b${type}\\b`), `${field}: ${message}`);
    }
  }
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining, 50000);
});

test('an unknown field with a huge name is named by a bounded preview', async () => {
  const message = await assertRefused('/search', `{"query":"x",${JSON.stringify('f'.repeat(30_000))}:1}`, 'huge field name');
  assert.match(message, /unknown field "f+…" \(30000 characters\)/);
});

test('a NUL character in any string of a body, or bytes that are not UTF-8, are a 400 naming them and cost nothing', async () => {
  const bodies: [string, string | Blob, RegExp][] = [
    ['/search', '{"query":"calm\\u0000piano"}', /^query holds a NUL character/],
    ['/search', '{"query":"calm","filters":{"moods":["Calm","\\u0000"]}}', /^filters\.moods\[1\] holds a NUL character/],
    ['/search', '{"query":"calm","a\\u0000b":1}', /^the name of field "a\\u0000b" holds a NUL character/],
    ['/clip-plan', '{"track_id":"trk_\\u0000","duration_seconds":10}', /^track_id holds a NUL character/],
    ['/search', new Blob([new Uint8Array([...Buffer.from('{"query":"caf'), 0xe9, ...Buffer.from('"}')])]), /not valid UTF-8/],
    ['/search', new Blob([new Uint8Array([0x7b, 0x22, 0x71, 0x75, 0x65, 0x72, 0x79, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])]), /not valid UTF-8/],
  ];
  const before = (await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining;
  for (const [path, body, message] of bodies) {
    const response = await fetch(`${server.base}${API}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    const json = await response.json();
    assert.equal(response.status, 400, `${path} ${body}: ${JSON.stringify(json)}`);
    assert.equal(json.code, 'invalid_parameters');
    assert.match(json.message, message);
  }
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining, before);
});

test('a query parameter on an endpoint that takes its parameters in the body is a 400 naming it, and costs nothing', async () => {
  const before = (await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining;
  for (const path of ['/search?limit=5', '/clip-plan?foo=1', '/download-track?track_id=x']) {
    const response = await call(server.base, 'POST', `${API}${path}`, key, { query: 'calm', track_id: 'trk_0000000000000000' });
    assert.equal(response.status, 400, `${path}: ${JSON.stringify(response.body)}`);
    assert.match(response.body.message, /^unknown query parameter "(limit|foo|track_id)"; this endpoint takes no query parameters$/);
  }
  assert.equal((await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining, before);
});

test('every response says X-Content-Type-Options: nosniff, so an error quoting markup is never read as HTML', async () => {
  const previewEcho = await fetch(`${server.base}${API}/previews/${encodeURIComponent('<html><body><img src=x onerror=alert(1)>')}.mp3`);
  const me = await fetch(`${server.base}${API}/me`, { headers: { authorization: `Bearer ${key}` } });
  const unknown = await fetch(`${server.base}/no-such-page`);
  const head = await fetch(`${server.base}/healthz`, { method: 'HEAD' });
  for (const response of [previewEcho, me, unknown, head]) {
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff', `${response.url} ${response.status}`);
    await response.arrayBuffer();
  }
  assert.equal(previewEcho.headers.get('content-type'), 'application/json');
  const dashboard = await fetch(`${server.base}/dashboard/login`);
  assert.equal(dashboard.headers.get('x-content-type-options'), 'nosniff', 'once, as the dashboard sends it');
});
