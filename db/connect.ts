// Opens the service's database: DATABASE_URL when set, otherwise the embedded PostgreSQL in DATA_DIR.
import type net from 'node:net';
import postgres from 'postgres';
import { APPLICATION_NAME, startEmbeddedPostgres } from './embedded-postgres.ts';
import { migrate } from './migrate.ts';
import { limitConnectionWaits } from './connection-wait.ts';
import { isSafeToRetry } from './failures.ts';
import { openSocket, type SocketTarget } from './socket.ts';

export type Sql = postgres.Sql;

export interface Database {
  sql: Sql;
  /**
   * Connections with synchronous_commit off, for writes that are safe to lose in a crash because
   * a later synchronous commit or the start-up sweep covers them: rate-limit counters, credit
   * reservations (a lost reservation is also a lost deduction) and refunds (a lost refund leaves
   * its reservation row, which the sweep refunds). The final charge and its license stay on `sql`;
   * its flush also makes every earlier write of the request durable (WAL order).
   */
  relaxedSql: Sql;
  /** True when this process runs the embedded server. */
  embedded: boolean;
  close(): Promise<void>;
}

// Every wait is bounded, so that a request learns within its 2 s budget that the database is gone
// (503, db/failures.ts), and the pool comes back by itself when the database does.
//
// A connect, including SCRAM authentication, takes 5-40 ms here; a connect not done in 1 s is to a
// host that does not answer, and leaves time in the budget to say so.
const CONNECT_TIMEOUT_S = 1;
// Longest a statement waits for a connection (db/connection-wait.ts). Above a reconnect backoff
// plus CONNECT_TIMEOUT_S, so a statement given to a reconnecting connection is settled by that
// connection; and with db/failures.ts's retry (a first failure within 0.5 s, a 0.1 s pause) a
// request still answers within 2 s.
export const SERVER_CONNECTION_WAIT_MS = 1_250;
// Wait before a closed connection connects again, doubling with the pool's failures in a row
// (postgres.js counts them per pool, and resets on a connect). Its default grows to 20 s: requests
// then waited up to 15 s during an outage, and connections kept waiting out backoffs for as long
// after it. 0.2 s at most costs a refusing server 16 connects per pool every 0.2 s.
const RECONNECT_FIRST_S = 0.01;
const RECONNECT_MAX_S = 0.2;
// An idle connection is closed after a minute: the server's memory back after a burst, and fewer
// connections sitting on a path a firewall may cut without telling anyone.
const IDLE_TIMEOUT_S = 60;
// Connections are replaced after 25-35 minutes (at random, so not all at once): a backend's caches
// of prepared statements and catalog entries only grow.
const MAX_LIFETIME_S = { min: 25 * 60, max: 35 * 60 };
// Closing waits this long for statements still running, then drops the connections. By then the
// service has drained its requests and flushed usage; what remains is a housekeeping statement, or
// a connection that died under a statement during an outage, which postgres.js 3.4.9 keeps as still
// running, so that sql.end() waited out its whole timeout (was 5 s) at every shutdown after one.
const CLOSE_TIMEOUT_S = 0.5;
// postgres.js 3.4.9 sends small writes on the next turn, and a connection that dies with such a
// write pending keeps it (and its timer, cleared but not reset) for good: every later connect of
// that connection buffers its startup message behind it and never sends it, so it ends in
// CONNECT_TIMEOUT, again and again, until about a kilobyte has piled up (minutes at the default
// 30 s timeout). A write of 1 KiB or more is sent at once, stale bytes first: so a startup message
// padded to that size, with a custom setting nothing reads, is never held back, and a connection
// left with stale bytes sends them with it. The server then refuses that connect before any
// authentication (the stale bytes, a message type letter first, read as an impossible packet
// length), and the connection's next connect, now clean, succeeds: one refused connect instead of
// minutes of timeouts. See test/connection-wait.test.ts.
const STARTUP_PADDING = { 'music_licensing.startup_padding': 'x'.repeat(1024) };

function reconnectDelaySeconds(failuresInARow: number): number {
  const jitter = 0.5 + Math.random() / 2; // connections of a pool do not all retry at once
  return Math.min(RECONNECT_FIRST_S * 2 ** failuresInARow, RECONNECT_MAX_S) * jitter;
}

function lifetimeSeconds(): number {
  return MAX_LIFETIME_S.min + Math.random() * (MAX_LIFETIME_S.max - MAX_LIFETIME_S.min);
}

/** How much of a pool is in use: postgres.js 3.4.9 does not tell, so its sockets are counted. */
export interface PoolUse {
  /** Connections open or being opened (idle ones close after IDLE_TIMEOUT_S). */
  open: number;
  /** The pool's `max`, and one more once it listens (postgres.js's LISTEN connection). */
  max: number;
}

const poolUses = new WeakMap<Sql, PoolUse>();

/** The use of a pool made by connectSql (zeros for any other). */
export function poolUse(sql: Sql): PoolUse {
  return poolUses.get(sql) ?? { open: 0, max: 0 };
}

function counted(socket: net.Socket, use: PoolUse): net.Socket {
  use.open += 1;
  socket.once('close', () => (use.open -= 1)); // once: db/socket.ts passes on one 'close' only
  return socket;
}

export interface ConnectOptions {
  synchronousCommit?: boolean;
  /**
   * Longest a statement waits for a connection (the server's pools: SERVER_CONNECTION_WAIT_MS).
   * Unset: as long as it takes, for tools and bulk work, whose statements may queue behind long ones.
   */
  connectionWaitMs?: number;
}

/**
 * `url` may name a Unix socket directory as libpq does, `?host=/dir` (postgres.js itself only
 * takes a socket as an option): the embedded server is reached that way, since over loopback TCP
 * the sender pays for the receiver's network stack too.
 */
export function connectSql(url: string, max = 16, options: ConnectOptions = {}): Sql {
  const parsed = new URL(url);
  const socketDir = parsed.searchParams.get('host');
  let socket: string | undefined;
  if (socketDir?.startsWith('/')) {
    socket = `${socketDir}/.s.PGSQL.${parsed.port || 5432}`;
    parsed.searchParams.delete('host');
  }
  const use: PoolUse = { open: 0, max };
  const sql = postgres(parsed.toString(), {
    ...(socket ? { path: socket } : {}),
    max,
    // Documented by postgres.js, missing from its types. See db/socket.ts.
    ...{ socket: (target: SocketTarget) => counted(openSocket(target), use) },
    connect_timeout: CONNECT_TIMEOUT_S,
    backoff: reconnectDelaySeconds,
    idle_timeout: IDLE_TIMEOUT_S,
    // Typed as a number, but postgres.js also takes a function, called once per connection.
    max_lifetime: lifetimeSeconds as unknown as number,
    onnotice: () => {},
    connection: {
      TimeZone: 'UTC',
      application_name: APPLICATION_NAME,
      ...(options.synchronousCommit === false ? { synchronous_commit: 'off' } : {}),
      ...STARTUP_PADDING,
    },
    // int8 ids and counts as JS numbers: ours stay far below 2^53.
    types: { int8: { to: 20, from: [20], serialize: (n: number) => String(n), parse: (s: string) => Number(s) } },
  });
  // postgres.js gives sql.listen a connection of its own, beyond `max`: a pool that listens may open one more.
  const listen = sql.listen;
  let listening = false;
  sql.listen = ((...args: Parameters<typeof listen>) => {
    if (!listening) use.max += 1;
    listening = true;
    return listen(...args);
  }) as typeof listen;
  const limited = limitConnectionWaits(sql, options.connectionWaitMs ?? Infinity);
  poolUses.set(limited, use);
  return limited;
}

/**
 * Opens all of a pool's connections at once: one statement each, sent together, since postgres.js
 * gives a statement that finds no idle connection to a closed one to connect. Without it a server's
 * first burst paid for the connects, all at once, and on a loaded machine some took longer than
 * the statements queued behind them may wait (SERVER_CONNECTION_WAIT_MS): a database that was there
 * answered 503 (test/two-processes.test.ts, 200 requests on two processes, failed so in CI). Opened
 * first, a burst waits only for the statements ahead of it, not for a connect. Idle connections
 * still close after IDLE_TIMEOUT_S.
 */
export async function openEveryConnection(sql: Sql): Promise<void> {
  await Promise.all(Array.from({ length: poolUse(sql).max }, () => startingStatement(() => sql`SELECT 1`)));
}

// Attempts at each statement of the server's start (the migrations, each warm-up connect) that
// failed unsent. The warm-up's 32 connects start at once: on a busy machine a few took longer than
// CONNECT_TIMEOUT_S (the test run's server failed to start so in CI, next to a browser test),
// though the database had just answered the migrations, and the start's first connect can meet
// the same. A connect that timed out sent nothing, so the next attempt is a fresh connect; a
// database that is really gone still fails the start, after START_ATTEMPTS of them.
const START_ATTEMPTS = 3;

/** `run` again while it fails without having been sent (isSafeToRetry), up to START_ATTEMPTS in all. */
async function startingStatement<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= START_ATTEMPTS || !isSafeToRetry(err)) throw err;
    }
  }
}

/** Ends a pool without waiting long for statements still running (see CLOSE_TIMEOUT_S). */
export function endSql(sql: Sql): Promise<void> {
  return sql.end({ timeout: CLOSE_TIMEOUT_S });
}

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  maxConnections?: number;
  /**
   * The API server only: adopt an embedded PostgreSQL orphaned by a crash of ours, and stop it at
   * close(). Tools leave it off: a tool that attached to a running database never stops it.
   */
  adoptOrphan?: boolean;
  /** The API server: bounded waits for a connection (see ConnectOptions.connectionWaitMs). */
  connectionWaitMs?: number;
  /** The API server: open every connection of both pools before serving (see openEveryConnection). */
  openEveryConnection?: boolean;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const embedded = options.databaseUrl ? undefined : await startEmbeddedPostgres(options.dataDir, { adoptOrphan: options.adoptOrphan ?? false });
  const url = options.databaseUrl ?? embedded!.url;
  const sql = connectSql(url, options.maxConnections, { connectionWaitMs: options.connectionWaitMs });
  const relaxedSql = connectSql(url, options.maxConnections, { synchronousCommit: false, connectionWaitMs: options.connectionWaitMs });
  try {
    await startingStatement(() => migrate(sql));
    if (options.openEveryConnection) await Promise.all([openEveryConnection(sql), openEveryConnection(relaxedSql)]);
  } catch (err) {
    await Promise.all([endSql(sql), endSql(relaxedSql)]);
    await embedded?.stop();
    throw err;
  }
  return {
    sql,
    relaxedSql,
    embedded: embedded !== undefined,
    async close() {
      await Promise.all([endSql(sql), endSql(relaxedSql)]);
      await embedded?.stop();
    },
  };
}
