// Seeded fuzzing over raw sockets against a real started server: thousands of requests built from
// hostile or unusual bodies, headers, framing, methods, ids and slow clients. Every complete
// request is answered (or its connection closed) within HANG_MS, no answer is a 5xx (a 503 with
// Retry-After under overload excepted), and PostgreSQL's ledger holds exactly one credit per paid
// 200 the clients received. FUZZ_SEED=<n> replays a run; a failure names its seed and case.
//
// Straight to the API, not generated: what the HTTP library itself never answers (HTTP/1.0, more
// than 48 header fields, absolute-form targets, folded header lines, NUL bytes in headers,
// unencoded spaces in the target, requests pipelined behind a pending one). A second run goes
// through the recommended deployment, deploy/nginx.conf in front of the API, with those too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { exchange } from './support/raw-http.ts';
import { API } from './support/http.ts';
import { makeCase, prng, type Case } from './support/fuzz-cases.ts';
import { startNginxFront, type NginxFront } from './support/nginx-front.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 88_2026);
const CASES = 2400;
const FRONT_CASES = 800;
const CONCURRENCY = 8;
const HANG_MS = 2000;
// An incomplete request (a client that goes away half-way) is given this long, then dropped.
const ABANDON_MS = 300;
const KEYS = 24;
const PRO_CREDITS = 50_000;
const PAID = new Set([`POST ${API}/search`, `POST ${API}/download-track`, `POST ${API}/_test/paid`, `POST ${API}/_test/answer`]);
// The front's 503 when no node answered (nginx's 502/504): a failure of the node, not overload.
const NO_NODE = /no API node answered/;

let server: TestServer;
let front: NginxFront;
before(async () => {
  server = await startTestServer();
  front = await startNginxFront([`127.0.0.1:${new URL(server.base).port}`]);
});
after(async () => {
  await front?.stop();
  await server.stop();
});

interface Run {
  failures: string[];
  paid200: number;
  statuses: Map<number, number>;
}

async function run(port: number, cases: Case[], seed: number): Promise<Run> {
  const failures: string[] = [];
  let paid200 = 0;
  const statuses = new Map<number, number>();
  let next = 0;
  async function worker() {
    while (next < cases.length) {
      const index = next++;
      const c = cases[index];
      const result = await exchange(port, c.parts, { expect: c.expect, waitMs: c.complete ? HANG_MS : ABANDON_MS, gapMs: c.gapMs, heads: c.head ? [0] : [] });
      const where = `case ${index} (seed ${seed}) ${c.description}`;
      if (c.complete && result.timedOut) failures.push(`hang: no answer or close within ${HANG_MS} ms: ${where}`);
      for (const response of result.responses) {
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const overload = response.status === 503 && response.headers['retry-after'] !== undefined && !NO_NODE.test(response.body);
        if (response.status >= 500 && !overload) failures.push(`${response.status}: ${where}: ${response.body.slice(0, 200)}`);
      }
      const first = result.responses[0];
      if (first && first.status === 200 && PAID.has(c.paid) && first.headers['idempotent-replayed'] !== 'true') paid200++;
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { failures, paid200, statuses };
}

/** Every paid 200 received is one credit in PostgreSQL, and nothing else is; waits for requests still settling. */
async function assertLedger(name: string, result: Run) {
  const sql = server.service.database.sql;
  const ledger = async () => (await sql`
    SELECT (${KEYS * PRO_CREDITS}::int - (SELECT sum(credits) FROM api_keys WHERE name = ${name}))::int AS spent,
           (SELECT coalesce(sum(u.credits_consumed), 0)::int FROM usage_records u JOIN api_keys k ON k.id = u.key_id WHERE k.name = ${name}) AS consumed`)[0];
  let settled = await ledger();
  for (let i = 0; i < 50 && (settled.spent !== result.paid200 || settled.consumed !== result.paid200); i++) {
    await new Promise((r) => setTimeout(r, 100));
    settled = await ledger();
  }
  const statuses = JSON.stringify([...result.statuses]);
  assert.equal(settled.consumed, result.paid200, `credits consumed in usage_records vs paid 200s received; statuses ${statuses}`);
  assert.equal(settled.spent, result.paid200, 'credits taken from the keys vs paid 200s received');
}

/** KEYS new pro keys, all named `name`. */
async function newKeys(name: string): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) keys.push(await server.newKey('pro', { name }));
  return keys;
}

test(`fuzz: ${CASES} seeded hostile requests (seed ${SEED}) straight to the API get no 5xx, no hang, and the ledger matches the paid 200s`, async () => {
  const keys = await newKeys('fuzz-direct');
  const rng = prng(SEED);
  const cases = Array.from({ length: CASES }, (_, i) => makeCase(rng, keys[i % KEYS], { libraryLimits: false }));
  const result = await run(Number(new URL(server.base).port), cases, SEED);
  assert.deepEqual(result.failures.slice(0, 20), [], `${result.failures.length} failures`);
  assert.ok(result.paid200 > 50, `paid 200s: ${result.paid200}; statuses ${JSON.stringify([...result.statuses])}`);
  await assertLedger('fuzz-direct', result);
});

test(`fuzz: ${FRONT_CASES} seeded hostile and unusual requests (seed ${SEED}) through the nginx front get no 5xx, no hang, and the ledger matches`, async () => {
  const keys = await newKeys('fuzz-front');
  const rng = prng(SEED + 1);
  const cases = Array.from({ length: FRONT_CASES }, (_, i) => makeCase(rng, keys[i % KEYS], { libraryLimits: true }));
  const result = await run(front.port, cases, SEED + 1);
  assert.deepEqual(result.failures.slice(0, 20), [], `${result.failures.length} failures`);
  assert.ok(result.paid200 > 20, `paid 200s: ${result.paid200}; statuses ${JSON.stringify([...result.statuses])}`);
  await assertLedger('fuzz-front', result);
});
