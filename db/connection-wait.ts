// Bounds how long a statement waits for a database connection, and gives a statement that a stale
// connection failed before sending it another go. postgres.js 3.4.9 has neither:
//
//  - A statement goes at once to an open or busy connection (pipelined). Otherwise it becomes the
//    first statement of a closed connection, which reconnects after a backoff, or waits in the
//    pool's queue until a connection opens or fails; nothing limits that wait. While the database is
//    down every connect fails, each failure hands one queued statement to the next attempt, and a
//    connect to an unresponsive host takes connect_timeout: under load the queue grows for as long
//    as the outage lasts.
//  - When a connection dies under a running statement, the statement stays on the connection
//    object as if running, with the server's FATAL if one came (57P01 at a fast shutdown): the
//    statement gets CONNECTION_CLOSED, and that FATAL fails the first statement the connection is
//    given after it reconnects, whenever that is (seen minutes after an outage). Until then an
//    error of its connect attempts (57P03 while the server starts) is kept the same way, and fails
//    that first statement although the attempt that lets it in succeeds. It was never sent.
//
// So each statement that finds no connection free is watched: if no connection has taken it
// within the limit it fails with CONNECTION_WAIT_TIMEOUT (503, db/failures.ts) and is made sure
// never to run; if it fails before it was sent with such an error, it is submitted again.
// This works on postgres.js's Query objects (node_modules/postgres/src/query.js, index.js):
// `handler` (the pool's entry, called once when the query is first awaited), `state` (null until a
// connection takes the statement), `reject`, `cancel()`. The version is pinned in package.json;
// test/connection-wait.test.ts checks these behaviours against a real server.
import type postgres from 'postgres';
import { connectionWaitTimeout } from './failures.ts';

interface WaitingQuery {
  /** The backend's key once a connection has taken the statement (execute()); null until then. */
  state: unknown;
  handler(query: WaitingQuery): void;
  reject(err: unknown): void;
  cancel(): unknown;
  cancelled: unknown;
  strings: readonly string[];
  args: unknown[];
  options: { onexecute?: unknown };
  then(onResolved: () => void, onRejected: () => void): unknown;
  [SUBMIT]?: (query: WaitingQuery) => void;
  [LIMIT]?: Limit;
}

interface Limit {
  waitMs: number;
}

const SUBMIT = Symbol('submit');
const LIMIT = Symbol('limit');

// What a statement that waited too long is turned into, should a connection still run it (see
// neutralize): no rows, so no cursor or forEach callback of the original sees anything.
const HARMLESS_STATEMENT = ['select 1 where false'];

/**
 * Returns `sql` with every statement made by it (tagged or unsafe, including sql.begin's BEGIN)
 * waiting at most `waitMs` for a connection (Infinity: no limit, re-submission only). Statements inside a transaction run on its connection
 * and never wait; sql.listen has a connection of its own.
 */
export function limitConnectionWaits(sql: postgres.Sql, waitMs: number): postgres.Sql {
  const limit: Limit = { waitMs };
  const watch = <T>(made: T): T => {
    if (made instanceof Promise) {
      const query = made as unknown as WaitingQuery;
      query[SUBMIT] = query.handler;
      query[LIMIT] = limit;
      query.handler = submitWithinLimit;
    }
    return made;
  };
  // sql.begin() sends its BEGIN through sql.unsafe, looked up on this same object.
  const unsafe = sql.unsafe;
  sql.unsafe = ((...args: Parameters<typeof unsafe>) => watch(unsafe(...args))) as typeof unsafe;
  return new Proxy(sql, {
    apply: (target, self, args) => watch(Reflect.apply(target, self, args)),
  });
}

// The common case, a connection free, costs one check: only a statement left waiting is watched.
function submitWithinLimit(query: WaitingQuery): void {
  query[SUBMIT]!(query);
  if (query.state === null) watchWait(query);
}

function watchWait(query: WaitingQuery): void {
  const submit = query[SUBMIT]!;
  const { waitMs } = query[LIMIT]!;
  const reject = query.reject;
  const deadline = performance.now() + waitMs;
  let answered = false;
  // No limit (Infinity: tools and bulk work): only the re-submission below.
  const timer = Number.isFinite(waitMs) ? setTimeout(() => {
    if (answered || query.state !== null) return; // a connection took it: how long it runs is not a wait
    answered = true;
    reject(connectionWaitTimeout(waitMs));
    neutralize(query);
  }, waitMs) : undefined;
  const stop = () => clearTimeout(timer);
  query.then(stop, stop);
  query.reject = (err) => {
    if (answered) return; // our timeout answered already; the pool's own rejection comes after
    if (query.state === null && isWorthResubmitting(err) && performance.now() < deadline) {
      // Not sent: once more, on the next turn, when the connection that failed it has rejoined
      // the pool. Each left-over error fails one statement and is gone; a server still starting
      // is asked again at the pool's reconnect pace, within the same limit.
      setImmediate(() => {
        if (!answered) submit(query);
      });
      return;
    }
    answered = true;
    stop();
    reject(err);
  };
}

// 57P01 (admin shutdown) and 57P02 (crash of another backend): the FATALs a server sends its
// running sessions, so left over from before when a connect delivers them. 57P03 (starting up,
// shutting down): either left over, or a server about to be up (a restart) or down (then the next
// connect is refused, and that fails at once). Not 53300 (too many clients): asking again adds to
// the crowd. A refused or timed-out connect fails at once too: the database is down (503).
function isWorthResubmitting(err: unknown): boolean {
  const { name, code } = (err ?? {}) as { name?: unknown; code?: unknown };
  return name === 'PostgresError' && (code === '57P01' || code === '57P02' || code === '57P03');
}

/**
 * Makes sure a statement that waited too long never runs. cancel() takes it out of the pool's
 * queue. A statement that is a reconnecting connection's first is not in that queue: cancel() only
 * flags it, and that connection, once connected, skips it and never rejoins the pool (seen with
 * postgres.js 3.4.9: with max 1 the pool then hangs for good). So it is un-flagged and turned into
 * a statement that does nothing, without the transaction hook of sql.begin's BEGIN (which would
 * hold the connection for a transaction that is not coming): the connection runs it and rejoins.
 */
function neutralize(query: WaitingQuery): void {
  query.cancel();
  query.cancelled = null;
  query.strings = HARMLESS_STATEMENT;
  query.args = [];
  query.options.onexecute = undefined;
}
