// Starts the real service for a test: in this process (startTestServer) or as a separate OS process
// (spawnServer), on a free port, against a test database.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { loadConfig, type Config } from '../../server/config.ts';
import { startService, type Service } from '../../server/service.ts';
import { createApiKey } from '../../billing/api-keys.ts';
import { createLogger, type Logger } from '../../server/observability/logger.ts';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface TestServer {
  base: string;
  service: Service;
  db: TestDatabase;
  dataDir: string;
  newKey(tier?: string, options?: { expiresAt?: Date; name?: string }): Promise<string>;
  stop(): Promise<void>;
}

/** `logger`: where the server logs (default: nothing; TEST_SERVER_LOG=1 shows it on stderr at LOG_LEVEL or info). */
export async function startTestServer(overrides: Partial<Config> = {}, logger?: Logger): Promise<TestServer> {
  const db = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-data-'));
  const config: Config = {
    ...loadConfig(),
    port: 0,
    host: '127.0.0.1',
    databaseUrl: db.url,
    dataDir,
    testRoutes: true,
    usageFlushMs: 20,
    ...overrides,
  };
  // stdout is node:test's own channel: a log shown while debugging goes to stderr.
  logger ??= process.env.TEST_SERVER_LOG ? createLogger({ destination: pino.destination(2) }) : createLogger({ level: 'silent' });
  const service = await startService(config, logger);
  return {
    base: `http://127.0.0.1:${service.port}`,
    service,
    db,
    dataDir,
    newKey: async (tier = 'starter', options = {}) =>
      (await createApiKey(service.database.sql, { name: options.name ?? 'test', tier, expiresAt: options.expiresAt })).key,
    async stop() {
      await service.stop();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface SpawnedServer {
  base: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** Runs `server/main.ts` as its own process (as `npm start` does, or through `npm start` itself) and waits until it listens. */
export async function spawnServer(env: Record<string, string>, startTimeoutMs = 60_000, launcher: 'node' | 'npm start' = 'node'): Promise<SpawnedServer> {
  const [command, args] = launcher === 'node'
    ? [process.execPath, [...(process.env.SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', 'server/main.ts']]
    : ['npm', ['start', '--silent']];
  const child = spawn(command, args, {
    cwd: root,
    // The per-request log lines only when asked for (LOG_LEVEL=info): tests read replies, not logs.
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL || 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), startTimeoutMs);
    // The banner's last line, on stderr (stdout carries the JSON log). Looked for until found
    // only: scanning the whole output at every chunk of a busy server's log costs quadratic time.
    const onData = () => {
      const match = /listening on (http:\/\/[^/\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stderr!.off('data', onData);
        resolve(match[1]);
      }
    };
    child.stderr!.on('data', onData);
    exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited:\n${output}`));
    });
  });
  return { base, child, output: () => output, exited };
}

/**
 * Stops the servers a test leaves running when it fails half-way (SIGTERM, then SIGKILL after
 * 10 s): a live child process would keep the test process, and so the whole run, from ending.
 */
export async function stopLeftovers(servers: (SpawnedServer | undefined)[]): Promise<void> {
  await Promise.all(servers.map(async (server) => {
    if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
    server.child.kill('SIGTERM');
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
    await server.exited;
    clearTimeout(timer);
  }));
}
