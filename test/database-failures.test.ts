// db/failures.ts against the errors a real PostgreSQL and the network make postgres.js raise:
// which mean "database unavailable" (503, never 500) and which are safe to retry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import postgres from 'postgres';
import { adminUrl } from './support/database.ts';
import { closedPort, startTcpProxy } from './support/tcp-proxy.ts';
import { isDatabaseUnavailable, isSafeToRetry, connectionWaitTimeout } from '../db/failures.ts';

// The run's server over TCP (test/run.ts may hand us its Unix socket form, ?host=<dir>).
function tcpTarget() {
  const url = new URL(adminUrl());
  url.searchParams.delete('host');
  return { url, host: url.hostname, port: Number(url.port || 5432) };
}

function urlWithPort(port: number): string {
  const url = tcpTarget().url;
  url.port = String(port);
  return url.toString();
}

// A bare pool: what postgres.js itself raises, without db/connect.ts's re-submissions.
function rawPool(url: string, options: postgres.Options<{}> = {}) {
  return postgres(url, { max: 1, onnotice: () => {}, ...options });
}

// A statement still running when it is cut at 0.2 s, and short: a backend whose client is gone
// sleeps on, and the run's server is only stopped once no connection of ours is left.
const RUNNING_S = 1;

async function failureOf(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string };
  }
  assert.fail('expected the statement to fail');
}

function assertClass(err: Error & { code?: string }, code: string, unavailable: boolean, safe: boolean) {
  assert.equal(err.code, code, `${err.name}: ${err.message}`);
  assert.equal(isDatabaseUnavailable(err), unavailable, `isDatabaseUnavailable(${code})`);
  assert.equal(isSafeToRetry(err), safe, `isSafeToRetry(${code})`);
}

/** Ends the backends of one application_name, from another connection. */
async function terminate(applicationName: string) {
  const admin = rawPool(tcpTarget().url.toString());
  try {
    await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${applicationName}`;
  } finally {
    await admin.end();
  }
}

test('a refused connect (nothing listens): ECONNREFUSED, unavailable, safe to retry (never sent)', async () => {
  const sql = rawPool(urlWithPort(await closedPort()));
  try {
    assertClass(await failureOf(sql`SELECT 1`), 'ECONNREFUSED', true, true);
  } finally {
    await sql.end();
  }
});

test('a Unix socket that is not there: ENOENT, unavailable, safe to retry', async () => {
  const sql = rawPool(tcpTarget().url.toString(), { path: `/tmp/mla-no-such-dir-${crypto.randomUUID()}/.s.PGSQL.5432` });
  try {
    assertClass(await failureOf(sql`SELECT 1`), 'ENOENT', true, true);
  } finally {
    await sql.end();
  }
});

test('a host that accepts and never answers: CONNECT_TIMEOUT, unavailable, safe to retry', async () => {
  const proxy = await startTcpProxy(tcpTarget());
  proxy.blackhole = true;
  const sql = rawPool(urlWithPort(proxy.port), { connect_timeout: 0.3 });
  try {
    assertClass(await failureOf(sql`SELECT 1`), 'CONNECT_TIMEOUT', true, true);
  } finally {
    await sql.end({ timeout: 0 });
    await proxy.close();
  }
});

test('pg_terminate_backend under a running statement: CONNECTION_CLOSED (not safe); its FATAL then fails the next statement of that connection: 57P01 (safe)', async () => {
  const name = `mla-terminate-${crypto.randomUUID().slice(0, 8)}`;
  const sql = rawPool(tcpTarget().url.toString(), { connection: { application_name: name } });
  try {
    await sql`SELECT 1`;
    const running = failureOf(sql`SELECT pg_sleep(${RUNNING_S})`);
    await new Promise((r) => setTimeout(r, 200));
    await terminate(name);
    // The statement was sent and the connection lost: it may have taken effect.
    assertClass(await running, 'CONNECTION_CLOSED', true, false);
    // postgres.js 3.4.9 keeps the server's FATAL on the connection and fails the first statement
    // after the reconnect with it: that statement was never sent.
    const next = await failureOf(sql`SELECT 1`);
    assertClass(next, '57P01', true, true);
    assert.equal(next.name, 'PostgresError');
    assert.deepEqual([...(await sql`SELECT 1 AS one`)], [{ one: 1 }], 'the connection works again after that');
  } finally {
    await sql.end({ timeout: 0 });
  }
});

test('a connection cut under a running statement: ECONNRESET on a reset, CONNECTION_CLOSED on a close; both unavailable, neither safe', async () => {
  const proxy = await startTcpProxy(tcpTarget());
  try {
    for (const reset of [true, false]) {
      // A pool each: a bare pool's next statement after a reset can hang (see connection-wait.test.ts).
      const sql = rawPool(urlWithPort(proxy.port));
      await sql`SELECT 1`;
      const running = failureOf(sql`SELECT pg_sleep(${RUNNING_S})`);
      await new Promise((r) => setTimeout(r, 200));
      proxy.cutAll({ reset });
      assertClass(await running, reset ? 'ECONNRESET' : 'CONNECTION_CLOSED', true, false);
      await sql.end({ timeout: 0 });
    }
  } finally {
    await proxy.close();
  }
});

test('too many connections (a role limited to one): 53300, unavailable, safe to retry', async () => {
  const role = `mla_limited_${crypto.randomBytes(4).toString('hex')}`;
  const password = crypto.randomBytes(12).toString('hex');
  const admin = rawPool(tcpTarget().url.toString());
  await admin.unsafe(`CREATE ROLE ${role} LOGIN PASSWORD '${password}' CONNECTION LIMIT 1`);
  const url = tcpTarget().url;
  url.username = role;
  url.password = password;
  const first = rawPool(url.toString());
  const second = rawPool(url.toString());
  try {
    await first`SELECT 1`;
    const err = await failureOf(second`SELECT 1`);
    assertClass(err, '53300', true, true);
    assert.equal(err.name, 'PostgresError');
  } finally {
    await Promise.all([first.end(), second.end()]);
    await admin.unsafe(`DROP ROLE ${role}`);
    await admin.end();
  }
});

test('a pool ended: CONNECTION_ENDED (unavailable, not retried: the pool is closing); a statement it gave up on: CONNECTION_DESTROYED (not safe)', async () => {
  const sql = rawPool(tcpTarget().url.toString());
  await sql`SELECT 1`;
  const running = failureOf(sql`SELECT pg_sleep(${RUNNING_S})`);
  await new Promise((r) => setTimeout(r, 100));
  const ending = sql.end({ timeout: 0 });
  assertClass(await failureOf(sql`SELECT 1`), 'CONNECTION_ENDED', true, false);
  assertClass(await running, 'CONNECTION_DESTROYED', true, false);
  await ending;
});

test("the statement's own errors and everything else are not unavailability", async () => {
  const sql = rawPool(tcpTarget().url.toString());
  try {
    const errors = [
      await failureOf(sql`SELEC 1`), // 42601 syntax error
      await failureOf(sql`SELECT 1 / 0`), // 22012 division by zero
      await failureOf(sql.begin(async (tx) => {
        await tx`SET LOCAL statement_timeout = 50`;
        await tx`SELECT pg_sleep(1)`;
      })), // 57014 canceled by statement_timeout
      await failureOf(sql`SELECT 'x'::int`), // 22P02
    ];
    assert.deepEqual(errors.map((e) => e.code), ['42601', '22012', '57014', '22P02']);
    for (const err of errors) {
      assert.equal(isDatabaseUnavailable(err), false, err.code);
      assert.equal(isSafeToRetry(err), false, err.code);
    }
  } finally {
    await sql.end();
  }
  for (const other of [new Error('boom'), new TypeError('x is undefined'), Object.assign(new Error('busy'), { code: 'busy' }), undefined, null, 'ECONNREFUSED', { code: 'ECONNREFUSED' }]) {
    assert.equal(isDatabaseUnavailable(other), false, String(other));
    assert.equal(isSafeToRetry(other), false, String(other));
  }
});

test('server SQLSTATEs of class 08 and 57P0x; a wrapped cause; our connection-wait timeout', () => {
  const serverError = (code: string) => new (postgres.PostgresError as unknown as new (fields: object) => Error)({ code, message: code, severity: 'FATAL' });
  for (const code of ['08000', '08003', '08006', '08001', '08004', '08P01', '57P01', '57P02', '57P03', '53300']) {
    assert.equal(isDatabaseUnavailable(serverError(code)), true, code);
    assert.equal(isSafeToRetry(serverError(code)), true, code);
  }
  for (const code of ['57014', '53100', '53200', '40001', '40P01', '25P02']) {
    assert.equal(isDatabaseUnavailable(serverError(code)), false, code);
  }
  // A Node error with a class-08-looking code is not a server's.
  assert.equal(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '08006' })), false);
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  assert.equal(isDatabaseUnavailable(new Error('loading the index failed', { cause: refused })), true);
  assert.equal(isSafeToRetry(new Error('loading the index failed', { cause: refused })), true);
  const waited = connectionWaitTimeout(1250);
  assert.equal(isDatabaseUnavailable(waited), true);
  assert.equal(isSafeToRetry(waited), true);
});
