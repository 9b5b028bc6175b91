// The embedded PostgreSQL of `npm start`: starts in DATA_DIR/pg, keeps data between starts,
// recovers from a stale postmaster.pid left by a crash, is stopped by our shutdown. Exactly one
// process stops it: the server that started or adopted it, never a command-line tool that attached
// (real processes: a server killed with SIGKILL, the keys and catalog tools run as `npm run` runs them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { spawnServer, stopLeftovers, type SpawnedServer } from './support/server.ts';
import { API } from './support/http.ts';
import { mp3Of } from './support/audio.ts';
import { drumPattern } from './support/synth.ts';

const LEFTOVER_STOP_MS = 10_000;
const TOOL_TIMEOUT_MS = 60_000;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'pg', 'postmaster.pid');
  return fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').split('\n')[0]) : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return !isAlive(pid);
}

/** Stops the PostgreSQL a failed test leaves running (immediate shutdown, then SIGKILL). */
async function stopLeftoverPostgres(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (!pid || !isAlive(pid)) return;
  process.kill(pid, 'SIGQUIT');
  if (!(await waitUntilGone(pid, LEFTOVER_STOP_MS))) process.kill(pid, 'SIGKILL');
}

interface Tool {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code; the tool is killed after TOOL_TIMEOUT_MS. */
  exited: Promise<number | null>;
}

/** A new DATA_DIR, readable by the 'postgres' user the embedded server may run as. */
function freshDataDir(): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-embedded-'));
  fs.chmodSync(dataDir, 0o755);
  return dataDir;
}

/** Stops a database a test left running in dataDir, and removes the directory. */
async function removeDataDir(dataDir: string): Promise<void> {
  await stopLeftoverPostgres(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** Runs a command-line tool (`npm run keys -- list` and the like) as its own process. */
function spawnTool(args: string[], env: Record<string, string>): Tool {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), TOOL_TIMEOUT_MS);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    clearTimeout(timer);
    resolve(code);
  }));
  return { child, output: () => output, exited };
}

async function waitForOutput(tool: Tool, text: string): Promise<void> {
  const deadline = Date.now() + TOOL_TIMEOUT_MS;
  while (!tool.output().includes(text)) {
    if (tool.child.exitCode !== null || Date.now() > deadline) throw new Error(`tool did not print "${text}":\n${tool.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `GET /healthz` and a database-backed request (`/me` with the demo key) both answer 200. */
async function assertServing(server: SpawnedServer, dataDir: string, after: string): Promise<void> {
  const health = await fetch(`${server.base}/healthz`);
  assert.equal(health.status, 200, `healthz after ${after}: ${await health.text()}`);
  const demoKey = fs.readFileSync(path.join(dataDir, 'demo-key'), 'utf8').trim();
  const me = await fetch(`${server.base}${API}/me`, { headers: { authorization: `Bearer ${demoKey}` } });
  assert.equal(me.status, 200, `a database-backed request after ${after}`);
}

test('npm start on an empty data dir, restart with a stale postmaster.pid, data kept, database stopped on exit', async () => {
  const dataDir = freshDataDir();
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', DEMO_TRACKS: '0' };
  let first: SpawnedServer | undefined;
  let second: SpawnedServer | undefined;
  try {
    first = await spawnServer(env);
    const demoKey = fs.readFileSync(path.join(dataDir, 'demo-key'), 'utf8').trim();
    assert.match(first.output(), new RegExp(`Demo API key \\(pro tier\\): ${demoKey}`));
    const me = await fetch(`${first.base}${API}/me`, { headers: { authorization: `Bearer ${demoKey}` } });
    assert.equal(me.status, 200);
    const pgPid = postmasterPid(dataDir)!;
    assert.ok(pgPid > 0);
    first.child.kill('SIGINT');
    assert.equal(await first.exited, 0);
    assert.equal(postmasterPid(dataDir), undefined, 'PostgreSQL was stopped and removed its pid file');

    // A crash leaves postmaster.pid naming a process that no longer exists.
    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    fs.writeFileSync(pidFile, `999999\n${path.join(dataDir, 'pg')}\n0\n5432\n\n127.0.0.1\n0 0\nready\n`);
    second = await spawnServer(env);
    const again = await fetch(`${second.base}${API}/me`, { headers: { authorization: `Bearer ${demoKey}` } });
    assert.equal(again.status, 200, 'the key created on the first start is still there');
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  } finally {
    await stopLeftovers([first, second]);
    await removeDataDir(dataDir);
  }
});

test('npm start passes SIGTERM on to the server; a Ctrl-C that reaches it twice at once is one; either drains and stops the database', async () => {
  const dataDir = freshDataDir();
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', DEMO_TRACKS: '0' };
  let viaNpm: SpawnedServer | undefined;
  let direct: SpawnedServer | undefined;
  try {
    viaNpm = await spawnServer({ ...env, LOG_LEVEL: 'info' }, 60_000, 'npm start');
    const pgPid = postmasterPid(dataDir)!;
    viaNpm.child.kill('SIGTERM'); // as docker stop or systemd sends it to the script's process
    await viaNpm.exited;
    assert.ok(await waitUntilGone(pgPid, LEFTOVER_STOP_MS), `the server stopped its database:\n${viaNpm.output()}`);
    assert.match(viaNpm.output(), /"msg":"stopped"/, 'the server drained and stopped, not npm alone');

    direct = await spawnServer({ ...env, LOG_LEVEL: 'info' });
    const again = postmasterPid(dataDir)!;
    direct.child.kill('SIGINT');
    direct.child.kill('SIGINT'); // the terminal's and npm's copy of one Ctrl-C
    assert.equal(await direct.exited, 0, direct.output());
    assert.ok(await waitUntilGone(again, LEFTOVER_STOP_MS));
  } finally {
    await stopLeftovers([viaNpm, direct]);
    await removeDataDir(dataDir);
  }
});

test('a server stopped by a signal while it starts stops the PostgreSQL it started', async () => {
  const dataDir = freshDataDir();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: root, env: { ...process.env, HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, DATABASE_URL: '', DEMO_TRACKS: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const tool: Tool = { child, output: () => '', exited: new Promise((resolve) => child.on('exit', resolve)) };
  child.stdout.resume();
  child.stderr.resume();
  try {
    const pgPid = await postgresStartedBy(tool, dataDir);
    child.kill('SIGTERM'); // at once: the service is still starting
    assert.equal(await tool.exited, 0);
    assert.ok(await waitUntilGone(pgPid, LEFTOVER_STOP_MS), 'the database the server was opening is stopped with it');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await removeDataDir(dataDir);
  }
});

test('after a crash the restarted server adopts the orphaned PostgreSQL; keys and catalog tools leave it running; SIGTERM stops it', async () => {
  const dataDir = freshDataDir();
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', DEMO_TRACKS: '0' };
  let crashed: SpawnedServer | undefined;
  let restarted: SpawnedServer | undefined;
  try {
    crashed = await spawnServer(env);
    const pgPid = postmasterPid(dataDir)!;
    crashed.child.kill('SIGKILL');
    await crashed.exited;
    assert.ok(isAlive(pgPid), 'PostgreSQL outlives the crash (orphaned)');

    const server = (restarted = await spawnServer(env));
    assert.equal(postmasterPid(dataDir), pgPid, 'the restarted server attached to the orphan');

    for (const args of [['billing/cli.ts', 'list'], ['catalog/cli.ts', 'list']]) {
      const tool = spawnTool(args, env);
      assert.equal(await tool.exited, 0, `${args.join(' ')} failed:\n${tool.output()}`);
      assert.ok(isAlive(pgPid), `${args.join(' ')} left PostgreSQL running`);
      await assertServing(server, dataDir, args.join(' '));
    }

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, `graceful exit:\n${server.output()}`);
    assert.ok(!isAlive(pgPid), 'the server that adopted PostgreSQL stopped it');
    assert.equal(postmasterPid(dataDir), undefined);
  } finally {
    await stopLeftovers([crashed, restarted]);
    await removeDataDir(dataDir);
  }
});

// A tool that holds the database open until told to finish, as a long `catalog -- ingest` does.
const HOLDING_TOOL = `
const { openDatabase } = await import('./db/connect.ts');
const db = await openDatabase({ dataDir: process.env.DATA_DIR });
console.log('database open');
process.stdin.once('data', async () => {
  await db.close();
  process.exit(0);
});
`;

test('a tool that started PostgreSQL leaves it running for a server that attached meanwhile; SIGTERM of the server stops it', async () => {
  const dataDir = freshDataDir();
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', DEMO_TRACKS: '0' };
  let tool: Tool | undefined;
  let attached: SpawnedServer | undefined;
  try {
    const holder = (tool = spawnTool(['--input-type=module', '--eval', HOLDING_TOOL], env));
    await waitForOutput(holder, 'database open');
    const pgPid = postmasterPid(dataDir)!;
    const server = (attached = await spawnServer(env));
    assert.equal(postmasterPid(dataDir), pgPid, 'the server attached to the PostgreSQL of the tool');

    holder.child.stdin!.end('done\n');
    assert.equal(await holder.exited, 0, holder.output());
    assert.ok(isAlive(pgPid), 'the tool left PostgreSQL running for the server');
    await assertServing(server, dataDir, 'the tool exited');

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, `graceful exit:\n${server.output()}`);
    assert.ok(!isAlive(pgPid), 'the server adopted the orphan the tool left and stopped it');
    assert.equal(postmasterPid(dataDir), undefined);
  } finally {
    if (tool && tool.child.exitCode === null) tool.child.kill('SIGKILL');
    await stopLeftovers([attached]);
    await removeDataDir(dataDir);
  }
});

/** The pid of the embedded PostgreSQL a tool started in dataDir, as soon as that server runs. */
async function postgresStartedBy(tool: Tool, dataDir: string): Promise<number> {
  const deadline = Date.now() + TOOL_TIMEOUT_MS;
  const running = () => {
    const pid = postmasterPid(dataDir); // the file is written before its first line is
    return pid !== undefined && pid > 0 && isAlive(pid) ? pid : undefined;
  };
  while (running() === undefined && tool.child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const pid = running();
  assert.ok(pid !== undefined, `the tool started PostgreSQL:\n${tool.output()}`);
  return pid;
}

test('a catalog tool stopped by a signal while it opens its database stops the PostgreSQL it started', async () => {
  const dataDir = freshDataDir();
  let tool: Tool | undefined;
  try {
    const list = (tool = spawnTool(['catalog/cli.ts', 'list'], { DATA_DIR: dataDir, DATABASE_URL: '' }));
    const pgPid = await postgresStartedBy(list, dataDir);
    list.child.kill('SIGTERM'); // at once: the server is still starting, the migrations not yet run
    assert.equal(await list.exited, 143, list.output());
    assert.ok(await waitUntilGone(pgPid, LEFTOVER_STOP_MS), 'the database the tool was opening is stopped with it');
  } finally {
    if (tool && tool.child.exitCode === null) tool.child.kill('SIGKILL');
    await removeDataDir(dataDir);
  }
});

test('a catalog ingest stopped by a signal to its own process alone stops the PostgreSQL it started', async () => {
  const dataDir = freshDataDir();
  const folder = path.join(dataDir, 'in');
  fs.mkdirSync(folder);
  const files = ['a.mp3', 'b.mp3', 'c.mp3', 'd.mp3', 'e.mp3']; // enough that some are still being made after the first
  for (const [i, file] of files.entries()) fs.writeFileSync(path.join(folder, file), await mp3Of(drumPattern(100 + i, 20)));
  fs.writeFileSync(path.join(folder, 'metadata.json'), JSON.stringify(files.map((file) => ({ file, title: file, artist: 'Stopped' }))));
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', WORKERS: '1' };
  let tool: Tool | undefined;
  try {
    const ingest = (tool = spawnTool(['catalog/cli.ts', 'ingest', folder], env));
    const pgPid = await postgresStartedBy(ingest, dataDir);
    await waitForOutput(ingest, 'ingesting'); // the first file made, the others being made
    ingest.child.kill('SIGINT'); // this process only, as `kill -INT` sends it: not the database's
    assert.equal(await ingest.exited, 130, ingest.output());
    assert.ok(await waitUntilGone(pgPid, LEFTOVER_STOP_MS), 'the database the ingest started is stopped with it');
  } finally {
    if (tool && tool.child.exitCode === null) tool.child.kill('SIGKILL');
    await removeDataDir(dataDir);
  }
});
