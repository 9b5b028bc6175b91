// db/connect.ts's pools when connections are lost: no statement waits long for a connection, one
// that waited too long never runs, and the defects postgres.js 3.4.9 leaves behind on a lost
// connection (db/connection-wait.ts, db/socket.ts, STARTUP_PADDING) do not reach our statements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import postgres from 'postgres';
import { connectSql, endSql, openDatabase, openEveryConnection, poolUse, SERVER_CONNECTION_WAIT_MS, type Sql } from '../db/connect.ts';
import { openSocket } from '../db/socket.ts';
import { isDatabaseUnavailable } from '../db/failures.ts';
import { adminUrl, createTestDatabase } from './support/database.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

// A database URL of the run's server over TCP, through `proxy` when given.
function tcpUrl(url: string, proxy?: TcpProxy): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('host');
  if (proxy) parsed.port = String(proxy.port);
  return parsed.toString();
}

function target() {
  const url = new URL(tcpUrl(adminUrl()));
  return { host: url.hostname, port: Number(url.port || 5432) };
}

// A statement still running when it is cut at 0.2 s, and short: a backend whose client is gone
// sleeps on, and the run's server is only stopped once no connection of ours is left.
const RUNNING_S = 1;

// Only detects a hang: a statement or a close that has not settled by then never will (the
// defects this file guards against wait forever). The outcomes themselves are the codes.
const HANG_MS = 30_000;

/** `promise`, or a STILL_WAITING failure once HANG_MS has passed. */
function unlessHung<T>(promise: Promise<T>): Promise<T> {
  let timer!: NodeJS.Timeout;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`still waiting after ${HANG_MS} ms`), { code: 'STILL_WAITING' })), HANG_MS);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

async function outcome(statement: Promise<unknown>): Promise<{ code: string; err?: unknown }> {
  try {
    await unlessHung(statement);
    return { code: 'ok' };
  } catch (err) {
    return { code: (err as { code?: string }).code ?? String(err), err };
  }
}

/** Ends one backend, from another connection. */
async function terminateBackend(pid: number) {
  const admin = postgres(tcpUrl(adminUrl()), { max: 1, onnotice: () => {} });
  try {
    await admin`SELECT pg_terminate_backend(${pid})`;
  } finally {
    await admin.end();
  }
}

/**
 * A server pool (bounded connection waits) of `max` connections to the run's server through a new
 * proxy, set up by `setUp` first; both closed after `run`.
 */
async function throughProxy(max: number, setUp: (proxy: TcpProxy) => void, run: (sql: Sql) => Promise<void>) {
  const proxy = await startTcpProxy(target());
  setUp(proxy);
  const sql = connectSql(tcpUrl(adminUrl(), proxy), max, { connectionWaitMs: SERVER_CONNECTION_WAIT_MS });
  try {
    await run(sql);
  } finally {
    await endSql(sql);
    await proxy.close();
  }
}

/** A proxy that holds connects past the pools' 1 s connect timeout: every connect started in the next 0.5 s times out. */
function holdFirstConnects(proxy: TcpProxy) {
  proxy.holdMs = 1_500;
  setTimeout(() => (proxy.holdMs = 0), 500);
}

test('a database that does not answer: 40 statements on 2 connections all fail, unavailable, by their connect or wait timeout', () =>
  throughProxy(2, (proxy) => (proxy.blackhole = true), async (sql) => {
    const results = await Promise.all(Array.from({ length: 40 }, () => outcome(sql`SELECT 1`)));
    for (const r of results) {
      assert.ok(isDatabaseUnavailable(r.err), `unavailable: ${r.code}`);
    }
    // The two statements the connections tried to connect for time out connecting; the others
    // were never given one.
    assert.deepEqual(new Set(results.map((r) => r.code)), new Set(['CONNECT_TIMEOUT', 'CONNECTION_WAIT_TIMEOUT']));
  }));

test('statements that waited too long for a connection never run, and the connection they waited on rejoins the pool', async () => {
  const db = await createTestDatabase();
  const setup = connectSql(db.url, 1);
  await setup`CREATE TABLE marks (label text)`;
  const proxy = await startTcpProxy(target());
  proxy.holdMs = 700; // connects take 0.7 s: longer than the statements may wait
  const sql = connectSql(tcpUrl(db.url, proxy), 1, { connectionWaitMs: 300 });
  try {
    const results = await Promise.all([
      outcome(sql`INSERT INTO marks VALUES ('first: the connecting connection''s own')`),
      outcome(sql`INSERT INTO marks VALUES ('second: in the pool''s queue')`),
      outcome(sql.begin((tx) => tx`INSERT INTO marks VALUES ('third: a transaction')`)),
    ]);
    for (const r of results) {
      assert.equal(r.code, 'CONNECTION_WAIT_TIMEOUT');
    }
    await new Promise((r) => setTimeout(r, 1000)); // the connection is made meanwhile
    proxy.holdMs = 0;
    const after = await outcome(sql`SELECT 1`);
    assert.equal(after.code, 'ok', 'the connection was not lost to the pool');
    assert.deepEqual([...(await setup`SELECT label FROM marks`)], [], 'none of them ran');
  } finally {
    await endSql(sql);
    await proxy.close();
    await endSql(setup);
    await db.drop();
  }
});

test('a connection terminated under a statement: the server\'s FATAL does not fail the next statement (postgres.js delivers it late; it is re-submitted)', async () => {
  const sql = connectSql(tcpUrl(adminUrl()), 1);
  try {
    const [{ pid }] = await sql`SELECT pg_backend_pid() AS pid`;
    const running = outcome(sql`SELECT pg_sleep(${RUNNING_S})`);
    await new Promise((r) => setTimeout(r, 200));
    await terminateBackend(pid);
    assert.equal((await running).code, 'CONNECTION_CLOSED');
    const next = await outcome(sql`SELECT 1`);
    assert.equal(next.code, 'ok', String(next.err)); // a bare pool fails it with 57P01: database-failures.test.ts
  } finally {
    await endSql(sql);
  }
});

// Bare postgres.js 3.4.9 hands a statement issued between a socket's 'error' and its 'close' to
// the dying connection, where it waits forever (db/socket.ts); whether one falls in that window
// depends on timing, so this checks our side only.
test('a statement right after a connection reset neither hangs nor fails', async () => {
  const proxy = await startTcpProxy(target());
  const sql = connectSql(tcpUrl(adminUrl(), proxy), 1);
  try {
    for (let round = 0; round < 3; round++) {
      await sql`SELECT 1`;
      const running = outcome(sql`SELECT pg_sleep(${RUNNING_S})`);
      await new Promise((r) => setTimeout(r, 200));
      proxy.cutAll({ reset: true });
      assert.equal((await running).code, 'ECONNRESET');
      // Issued at once, as a request's next statement would be.
      const next = await outcome(sql`SELECT 1`);
      assert.equal(next.code, 'ok', String(next.err));
    }
  } finally {
    await endSql(sql);
    await proxy.close();
  }
});

test('a connection lost with a write pending connects again at once (without the startup padding: CONNECT_TIMEOUT at every connect)', async () => {
  const proxy = await startTcpProxy(target());
  const url = tcpUrl(adminUrl(), proxy);
  // A socket whose data comes in the same turn of the event loop as the lost connection's end:
  // the statement it starts is written (postgres.js holds small writes to the next turn) and the
  // connection then closed before that write goes out.
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const trigger = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const sender = await accepted;
  const loseWithWritePending = async (sql: Sql) => {
    await sql`SELECT 1`;
    const cut = new Promise<{ code: string }>((resolve) => trigger.once('data', () => resolve(outcome(sql`SELECT 2`))));
    setTimeout(() => {
      sender.write('x');
      proxy.cutAll();
      const until = performance.now() + 20;
      while (performance.now() < until); // both arrive before the event loop looks again
    }, 10);
    assert.equal((await cut).code, 'CONNECTION_CLOSED');
    return [await outcome(sql`SELECT 3`), await outcome(sql`SELECT 4`)];
  };
  const unpadded = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 0.3, ...{ socket: openSocket } });
  const sql = connectSql(url, 1);
  try {
    assert.deepEqual((await loseWithWritePending(unpadded)).map((r) => r.code), ['CONNECT_TIMEOUT', 'CONNECT_TIMEOUT']);
    const next = await loseWithWritePending(sql);
    assert.deepEqual(next.map((r) => r.code), ['ok', 'ok'], String(next[0].err));
  } finally {
    trigger.destroy();
    sender.destroy();
    server.close();
    await unpadded.end({ timeout: 0 });
    await endSql(sql);
    await proxy.close();
  }
});

test('closing a pool whose connection died under a statement does not hang (postgres.js counts that statement as still running)', async () => {
  const sql = connectSql(tcpUrl(adminUrl()), 1);
  const [{ pid }] = await sql`SELECT pg_backend_pid() AS pid`;
  const running = outcome(sql`SELECT pg_sleep(${RUNNING_S})`);
  await new Promise((r) => setTimeout(r, 200));
  await terminateBackend(pid);
  await running;
  assert.equal((await outcome(endSql(sql))).code, 'ok');
});

test('a server warming its pool on a busy machine: connects that time out are made again, and every connection opens', () =>
  throughProxy(4, holdFirstConnects, async (sql) => {
    await openEveryConnection(sql);
    assert.equal(poolUse(sql).open, 4);
  }));

test('a database that never answers still fails the warm-up', () =>
  throughProxy(2, (proxy) => (proxy.blackhole = true), async (sql) => {
    const result = await outcome(openEveryConnection(sql));
    assert.ok(isDatabaseUnavailable(result.err), `unavailable: ${result.code}`);
  }));

test("a server starting on a busy machine: its migrations' connect timing out is made again, and the start succeeds", async () => {
  const db = await createTestDatabase();
  const proxy = await startTcpProxy(target());
  holdFirstConnects(proxy);
  try {
    const database = await openDatabase({ databaseUrl: tcpUrl(db.url, proxy), dataDir: '/nonexistent', maxConnections: 2, connectionWaitMs: SERVER_CONNECTION_WAIT_MS, openEveryConnection: true });
    try {
      const [row] = await database.sql`SELECT count(*)::int AS n FROM schema_migrations`;
      assert.ok(row.n > 0, 'migrated');
    } finally {
      await database.close();
    }
  } finally {
    await proxy.close();
    await db.drop();
  }
});
