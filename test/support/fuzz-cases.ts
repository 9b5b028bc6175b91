// The cases of the HTTP fuzz test (test/http-fuzz.test.ts): seeded, each a request as raw bytes
// built from hostile or unusual bodies, headers, framing, methods, ids and slow clients.
import { API } from './http.ts';
import { seededRandom } from '../../catalog/demo/random.ts';

/** The demo generator's seeded PRNG (mulberry32), enough to replay a run, with the draws the cases make. */
export function prng(seed: number) {
  const { next } = seededRandom(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  return { next, int, pick, chance: (p: number) => next() < p };
}
export type Rng = ReturnType<typeof prng>;

const TEXTS = ['', 'x', 'upbeat corporate', 'ünïcödé ✓', '\u0000', '\ud800', '"quoted"', '\\', '<script>', '%00', 'a'.repeat(600), '../../etc/passwd', ' ', '\n\t'];
const NUMBERS = ['0', '-1', '1', '20', '100', '101', '1e308', '-1e308', '1.5', '0.0001', '40', '200', '7.5', '30', '9007199254740993', '-0'];

/** A random JSON value, `depth` levels of nesting at most. */
function jsonValue(rng: Rng, depth: number): string {
  const kind = rng.int(depth > 0 ? 8 : 5);
  switch (kind) {
    case 0: return rng.pick(NUMBERS);
    case 1: return JSON.stringify(rng.pick(TEXTS));
    case 2: return rng.pick(['true', 'false', 'null']);
    case 3: return JSON.stringify(rng.pick(['low', 'medium', 'high', 'segment', 'loop', 'edit', 'rock', 'happy', 'piano']));
    case 4: return `"${'z'.repeat(rng.int(3000))}"`;
    case 5: return `[${Array.from({ length: rng.int(4) }, () => jsonValue(rng, depth - 1)).join(',')}]`;
    case 6: return `{${Array.from({ length: rng.int(4) }, () => `${JSON.stringify(rng.pick(['a', 'min_bpm', 'genres', 'query', '']))}:${jsonValue(rng, depth - 1)}`).join(',')}}`;
    default: return '['.repeat(rng.int(6000)) + ']'.repeat(0); // left unclosed on purpose: malformed
  }
}

const FIELDS: Record<string, string[]> = {
  '/search': ['query', 'limit', 'offset', 'filters', 'intent', 'facets', 'bogus'],
  '/download-track': ['track_id', 'duration_seconds', 'hit_point_seconds', 'mode', 'bogus'],
  '/clip-plan': ['track_id', 'duration_seconds', 'hit_point_seconds', 'mode'],
  // (Not "fail": that asks the test route for a 503.)
  '/_test/paid': ['delay_ms', 'bogus'],
  '/_test/answer': ['delay_ms', 'bogus'],
};
const FILTERS = ['genres', 'moods', 'instruments', 'has_vocals', 'min_bpm', 'max_bpm', 'energy_level'];

function body(rng: Rng, path: string): string {
  const fields = FIELDS[path] ?? ['a'];
  const parts: string[] = [];
  if (path === '/search' && rng.chance(0.7)) parts.push(`"query":${JSON.stringify(rng.pick(TEXTS.slice(1, 5)))}`);
  for (let i = rng.int(4); i > 0; i--) {
    const field = rng.pick(fields);
    if (field === 'filters') {
      parts.push(`"filters":{${Array.from({ length: rng.int(3) + 1 }, () => `"${rng.pick(FILTERS)}":${jsonValue(rng, 2)}`).join(',')}}`);
    } else if (field === 'delay_ms') {
      parts.push(`"delay_ms":${rng.int(30)}`);
    } else {
      const deep = rng.chance(0.05);
      const d = 4000 + rng.int(500);
      parts.push(`"${field}":${deep ? '['.repeat(d) + ']'.repeat(d) : jsonValue(rng, 3)}`);
    }
  }
  let text = `{${parts.join(',')}}`;
  const mutation = rng.int(12);
  if (mutation === 0) text = text.slice(0, rng.int(text.length + 1)); // truncated
  else if (mutation === 1) text = rng.pick(['[]', '"s"', '1', 'null', '', '{"a":1}}', '\u00ff\u00fe', '{,}']);
  else if (mutation === 2) {
    const at = rng.int(text.length + 1);
    text = text.slice(0, at) + String.fromCharCode(rng.int(256)) + text.slice(at);
  }
  return text;
}

const PATHS = [
  `${API}/search`, `${API}/download-track`, `${API}/clip-plan`, `${API}/_test/paid`, `${API}/_test/answer`,
  `${API}/me`, `${API}/usage`, `${API}/licenses`, '/healthz', '/', '/nope', `${API}/`, `${API}/openapi.json`,
];

function id(rng: Rng): string {
  return rng.pick([
    'trk_0000000000000000', 'x', '%2e%2e%2f%2e%2e', '%00', encodeURIComponent('ünï'), 'a'.repeat(rng.int(2000)),
    'lic_AbCd-_12_3f', '..', '%ZZ', '1;DROP%20TABLE%20tracks', `${rng.int(1e9)}`, '%F0%9F%8E%B5',
  ]);
}

function target(rng: Rng): string {
  const kind = rng.int(5);
  if (kind === 0) return `${API}/tracks/${id(rng)}/${rng.pick(['similar', 'analysis', 'x'])}`;
  if (kind === 1) return `${API}/licenses/${id(rng)}`;
  if (kind === 2) return `${API}/previews/${id(rng)}${rng.pick(['', '.mp3'])}?${rng.pick(['', 'exp=1', 'sig=%%', 'exp=99999999999&sig=abc'])}`;
  const path = rng.pick(PATHS);
  return rng.chance(0.2) ? `${path}?${rng.pick(['limit=-1', 'limit=%ZZ', 'offset=1e9', 'a=b&a=c', `x=${'q'.repeat(1000)}`, 'limit=5&offset=2'])}` : path;
}

const HEADER_NAMES = ['X-A', 'Accept', 'Accept-Encoding', 'Cookie', 'Range', 'If-None-Match', 'Idempotency-Key', 'Content-Type', 'Expect', 'Origin', 'User-Agent', 'X-Forwarded-For', 'Connection'];

function headerValue(rng: Rng): string {
  return rng.pick([
    'x', '', ' padded ', 'bytes=0-10', 'bytes=99999999-', 'bytes=abc', 'application/json', 'text/plain', 'close', 'keep-alive',
    '100-continue', '\u00ff\u00e9', 'v'.repeat(rng.int(1500)), '*/*', `k-${rng.int(1e9)}`, '\t', 'a, b, c',
  ]);
}

export interface Case {
  description: string;
  parts: string[];
  gapMs: number;
  head: boolean;
  /** The request is complete: it must be answered or closed within HANG_MS. */
  complete: boolean;
  paid: string;
  /** Complete responses to wait for (more than one: pipelined requests). */
  expect: number;
}

export interface CaseOptions {
  /**
   * Also what the HTTP library itself never answers (HTTP/1.0, more than 48 header fields,
   * absolute-form targets, folded header lines, NUL bytes in headers, unencoded spaces in the
   * target, pipelined requests): for a run through the nginx front.
   */
  libraryLimits: boolean;
}

export function makeCase(rng: Rng, key: string, options: CaseOptions): Case {
  const categories = ['bodies', 'bodies', 'headers', 'framing', 'methods', 'ids', 'slow', ...(options.libraryLimits ? ['unusual', 'unusual'] : [])] as const;
  const category = rng.pick(categories);
  if (category === 'unusual') return unusualCase(rng, key);
  let method = 'GET';
  let path = target(rng);
  let payload = '';
  if (category === 'bodies' || category === 'framing' || category === 'slow' || rng.chance(0.3)) {
    method = 'POST';
    path = rng.pick(Object.keys(FIELDS).map((p) => API + p));
    payload = body(rng, path.slice(API.length));
  }
  if (category === 'methods') method = rng.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'HEAD', 'FOO', 'PROPFIND', 'get', 'CONNECT', 'TRACE']);
  const headers: string[] = ['Host: x'];
  const auth = rng.int(10);
  if (auth < 7) headers.push(`Authorization: Bearer ${key}`);
  else if (auth === 7) headers.push(`Authorization: ${rng.pick(['Bearer', 'Basic abc', `Bearer ${key}x`, 'Bearer mla_' + 'A'.repeat(43), `bearer   ${key}  `, 'Bearer \u00ff'])}`);
  const extra = category === 'headers' ? rng.int(40) : rng.int(3);
  for (let i = 0; i < extra; i++) headers.push(`${rng.chance(0.2) ? `X-F${rng.int(100)}` : rng.pick(HEADER_NAMES)}: ${headerValue(rng)}`);
  if (category === 'headers' && rng.chance(0.2)) headers.push(`X-Big: ${'b'.repeat(3000 + rng.int(3000))}`);
  if (method === 'POST' && !headers.some((h) => h.startsWith('Content-Type'))) headers.push('Content-Type: application/json');

  const bytes = Buffer.byteLength(payload);
  let framing = 'content-length';
  if (method === 'POST' || payload !== '') {
    if (category === 'framing') framing = rng.pick(['shorter', 'two-lengths', 'same-twice', 'chunked', 'bad-chunked', 'te-and-cl', 'none', 'negative', 'text']);
    if (framing === 'content-length') headers.push(`Content-Length: ${bytes}`);
    else if (framing === 'shorter') headers.push(`Content-Length: ${rng.int(bytes + 1)}`);
    else if (framing === 'two-lengths') headers.push(`Content-Length: ${bytes}`, `Content-Length: ${bytes + 1 + rng.int(50)}`);
    else if (framing === 'same-twice') headers.push(`Content-Length: ${bytes}`, `Content-Length: ${bytes}`);
    else if (framing === 'chunked' || framing === 'bad-chunked' || framing === 'te-and-cl') {
      headers.push('Transfer-Encoding: chunked');
      if (framing === 'te-and-cl') headers.push(`Content-Length: ${bytes}`);
      const size = framing === 'bad-chunked' ? rng.pick(['zz', '-1', 'fffffffffffffff', '']) : bytes.toString(16);
      payload = bytes === 0 ? '0\r\n\r\n' : `${size}\r\n${payload}\r\n0\r\n\r\n`;
    } else if (framing === 'negative') headers.push('Content-Length: -5');
    else if (framing === 'text') headers.push('Content-Length: abc');
  }
  const head = `${method} ${path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`;
  const whole = head + payload;
  let parts = [whole];
  let gapMs = 0;
  let complete = true;
  if (category === 'slow') {
    const style = rng.int(3);
    if (style === 0) {
      // A whole request in a few pieces, a few tens of milliseconds apart.
      const cuts = [...new Set(Array.from({ length: 1 + rng.int(3) }, () => rng.int(whole.length)))].sort((a, b) => a - b);
      parts = [0, ...cuts].map((from, i, all) => whole.slice(from, all[i + 1] ?? whole.length)).filter((p) => p !== '');
      gapMs = 10 + rng.int(40);
    } else {
      // Goes away before the request is complete: never charged, never answered (nothing asserted but no 5xx).
      parts = [whole.slice(0, rng.int(Math.max(1, whole.length - 1)))];
      complete = false;
    }
  }
  // A request the server may leave waiting: a body shorter than its Content-Length says, a
  // chunked body cut short.
  if (framing === 'bad-chunked') complete = false;
  // Whatever its framing, the first answer on the connection is to this request.
  const paid = `${method} ${path}`;
  return { description: `${category}/${framing}: ${describeParts(parts)}`, parts, gapMs, head: method === 'HEAD', complete, paid, expect: 1 };
}

function describeParts(parts: string[]): string {
  return JSON.stringify(parts.map((p) => (p.length > 200 ? `${p.slice(0, 200)}…` : p)));
}

/** A well-formed but unusual request that the HTTP library itself never answers. */
function unusualCase(rng: Rng, key: string): Case {
  const auth = `Authorization: Bearer ${key}\r\n`;
  const me = `GET ${API}/me HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;
  const search = '{"query":"calm piano"}';
  const kind = rng.pick(['http10', 'fields', 'absolute', 'folded', 'nul', 'space', 'pipelined', 'unknown-method'] as const);
  let whole: string;
  let expect = 1;
  let paid = '';
  if (kind === 'http10') {
    whole = rng.chance(0.5)
      ? `GET ${API}/me HTTP/1.0\r\n${rng.chance(0.5) ? 'Host: x\r\n' : ''}${auth}\r\n`
      : `POST ${API}/search HTTP/1.0\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${search.length}\r\n\r\n${search}`;
    if (whole.startsWith('POST')) paid = `POST ${API}/search`;
  } else if (kind === 'fields') {
    const fields = Array.from({ length: 49 + rng.int(150) }, (_, i) => `X-Field-${i}: ${i}\r\n`).join('');
    whole = `GET ${API}/me HTTP/1.1\r\nHost: x\r\n${auth}${fields}\r\n`;
  } else if (kind === 'absolute') {
    whole = `GET http://x${API}/me HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;
  } else if (kind === 'folded') {
    whole = `GET ${API}/me HTTP/1.1\r\nHost: x\r\n${auth}X-Note: a\r\n ${rng.pick(['folded', '\tmore'])}\r\n\r\n`;
  } else if (kind === 'nul') {
    whole = `GET ${API}/me HTTP/1.1\r\nHost: x\r\n${auth}X-Note: a\0b\r\n\r\n`;
  } else if (kind === 'space') {
    whole = `GET ${API}/tracks/a b/similar HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;
  } else if (kind === 'pipelined') {
    expect = 2 + rng.int(3);
    whole = me.repeat(expect);
  } else {
    whole = `${rng.pick(['FOO', 'PROPFIND', 'BREW', 'MKCOL'])} ${API}/me HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;
  }
  return { description: `unusual/${kind}: ${describeParts([whole])}`, parts: [whole], gapMs: 0, head: false, complete: true, paid, expect };
}

