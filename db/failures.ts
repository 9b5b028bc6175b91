// Which database failures mean "the database cannot be reached just now" (the API answers 503 with
// Retry-After; a client may try again) rather than a bug (500), and which of those a statement may
// be retried after, because it certainly did not take effect.
//
// How postgres.js 3.4.9 reports a lost database (node_modules/postgres/src/connection.js, errors.js):
//  - Node's socket errors, passed on as they are: `code` ECONNREFUSED (nothing listens on the port,
//    or on a Unix socket file left behind), ENOENT (the Unix socket file is gone), ECONNRESET,
//    EPIPE, ETIMEDOUT, EHOSTUNREACH...;
//  - its own (Errors.connection): a plain Error whose `code` and `errno` are CONNECT_TIMEOUT (no
//    ReadyForQuery within connect_timeout of opening the socket), CONNECTION_CLOSED (the socket
//    closed under a statement), CONNECTION_ENDED (a statement after sql.end()), CONNECTION_DESTROYED
//    (sql.end({ timeout }) gave up on a statement still running);
//  - the server's: a PostgresError whose `code` is the SQLSTATE, e.g. 57P01 "terminating connection
//    due to administrator command" (fast shutdown, pg_terminate_backend), 57P03 "the database
//    system is starting up / shutting down", 53300 "too many clients already".
import postgres from 'postgres';

/** The code of our own error for a statement that waited too long for a connection (db/connection-wait.ts). */
export const CONNECTION_WAIT_TIMEOUT = 'CONNECTION_WAIT_TIMEOUT';

export function connectionWaitTimeout(waitMs: number): Error {
  return Object.assign(new Error(`${CONNECTION_WAIT_TIMEOUT}: no database connection within ${waitMs} ms`), { code: CONNECTION_WAIT_TIMEOUT });
}

// Socket errors that can only happen while connecting: the statement was never sent.
const CONNECT_SOCKET_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN']);
// Socket errors that can also cut a connection under a statement that was sent.
const LOST_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'ECONNABORTED']);
// postgres.js's own; CONNECT_TIMEOUT and ours are raised before the statement was sent.
const CONNECT_CLIENT_CODES = new Set(['CONNECT_TIMEOUT', CONNECTION_WAIT_TIMEOUT]);
const LOST_CLIENT_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED']);
// Server SQLSTATEs besides class 08 (connection exception): admin shutdown, crash shutdown,
// cannot connect now, too many connections.
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

// A wrapped error (`new Error(..., { cause })`) keeps its cause's meaning, a few levels deep.
const MAX_CAUSE_DEPTH = 3;

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function isServerError(err: unknown): boolean {
  return err instanceof postgres.PostgresError || (err as Error | null | undefined)?.name === 'PostgresError';
}

function isConnectionSqlState(code: string): boolean {
  return SERVER_CODES.has(code) || code.startsWith('08');
}

/** Looks at `err` and its causes. */
function someCause(err: unknown, test: (err: unknown, code: string) => boolean): boolean {
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && err instanceof Error; depth++) {
    const code = codeOf(err);
    if (code !== undefined && test(err, code)) return true;
    err = err.cause;
  }
  return false;
}

/**
 * True for every failure that means the database cannot be reached, or is going away or not yet
 * back: the API answers these with 503 and Retry-After, never 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  return someCause(err, (e, code) =>
    isServerError(e)
      ? isConnectionSqlState(code)
      : CONNECT_SOCKET_CODES.has(code) || LOST_SOCKET_CODES.has(code) || CONNECT_CLIENT_CODES.has(code) || LOST_CLIENT_CODES.has(code));
}

/**
 * True when the failed statement certainly did not take effect, so running it again cannot apply it
 * twice:
 *  - it was never sent: a socket error of connecting (ECONNREFUSED, ENOENT, EADDRNOTAVAIL and the
 *    name lookups ENOTFOUND, EAI_AGAIN), CONNECT_TIMEOUT (postgres.js raises it only before a new
 *    connection's first ReadyForQuery; the statement waits to be that connection's first until
 *    then), our CONNECTION_WAIT_TIMEOUT (never handed to a connection);
 *  - or the server reported it failed with a connection-level SQLSTATE (57P01, 57P02, 57P03, 53300,
 *    class 08): a statement the server fails is rolled back with its transaction, and these FATALs
 *    end the session too. In postgres.js 3.4.9 such an error in fact only ever reaches a statement
 *    that was not sent: one arriving under a running statement is followed by the socket closing
 *    before ReadyForQuery, so that statement gets CONNECTION_CLOSED, while the FATAL stays on the
 *    connection and fails whichever statement is the first after it reconnects, maybe minutes
 *    later (the "stray 57P01" after an outage; db/connection-wait.ts re-submits those).
 * Not safe: CONNECTION_CLOSED, CONNECTION_DESTROYED, ECONNRESET, EPIPE, ETIMEDOUT and the like: the
 * connection was lost under a statement that was sent, which may have committed before its reply
 * was lost. Nor CONNECTION_ENDED: never sent, but the pool is closing and would refuse it again.
 */
export function isSafeToRetry(err: unknown): boolean {
  return someCause(err, (e, code) =>
    isServerError(e) ? isConnectionSqlState(code) : CONNECT_SOCKET_CODES.has(code) || CONNECT_CLIENT_CODES.has(code));
}
