// runCommand (db/command-line.ts): a tool stopped by a signal runs its undos to the end and exits
// with the signal's code, even when its work in flight fails meanwhile in ways nobody awaits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawn } from 'node:child_process';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const READY_TIMEOUT_MS = 30_000;

async function stopWith(signal: 'SIGINT' | 'SIGTERM'): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/stopping-command.ts'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!output.includes('ready') && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(output.includes('ready'), output);
  child.kill(signal);
  return { code: await exited, output };
}

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  test(`${signal}: the undos run to their end despite failures of the work in flight, and the exit code is ${code}`, async () => {
    const stopped = await stopWith(signal);
    assert.equal(stopped.code, code, stopped.output);
    assert.match(stopped.output, /undone/);
    assert.doesNotMatch(stopped.output, /ECONNRESET|CONNECTION_CLOSED/);
  });
}
