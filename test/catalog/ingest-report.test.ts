// The reports of `npm run catalog -- ingest` and `list`: one line per file or track, whatever its
// name or title holds. One with a newline or an escape sequence is printed quoted, with escapes, so
// it can neither split its line nor drive the terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createTestDatabase } from '../support/database.ts';
import { drumPattern } from '../support/synth.ts';
import { mp3Of } from '../support/audio.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

function runTool(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'catalog/cli.ts', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.resume();
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout })));
}

test('a file name or title with a newline or an escape sequence keeps to one quoted line of the reports', async () => {
  const db = await createTestDatabase();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-report-'));
  const dir = path.join(work, 'in');
  fs.mkdirSync(dir);
  try {
    const names = { good: 'two\nlines.mp3', bad: 'red\u001b[31m.mp3', plain: 'plain.mp3' };
    fs.writeFileSync(path.join(dir, names.good), await mp3Of(drumPattern(100, 11)));
    fs.writeFileSync(path.join(dir, names.plain), await mp3Of(drumPattern(120, 11)));
    fs.writeFileSync(path.join(dir, names.bad), 'not audio');
    const titles: Record<string, string> = { [names.good]: 'Title\r\nwith \u001b]0;a terminal title\u0007' };
    fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify(Object.values(names).map((file) => ({ file, title: titles[file] ?? 'Named', artist: 'Test' }))));
    const env = { DATABASE_URL: db.url, DATA_DIR: path.join(work, 'data'), WORKERS: '1' };
    const { code, stdout } = await runTool(['ingest', dir], env);
    assert.equal(code, 3, stdout); // one file rejected
    const lines = stdout.split('\n').filter((line) => /^(ingested|unchanged|rejected) /.test(line));
    assert.equal(lines.length, 3, stdout);
    assert.ok(lines.some((line) => /^ingested\s+trk_\w+\s+"two\\nlines\.mp3"$/.test(line)), stdout);
    assert.ok(lines.some((line) => /^ingested\s+trk_\w+\s+plain\.mp3$/.test(line)), stdout);
    assert.ok(lines.some((line) => line.startsWith('rejected  "red\\u001b[31m.mp3": ')), stdout);
    assert.ok(!stdout.includes('\u001b'), 'no escape character reaches the terminal');
    // `list` prints each track on one line too, its title quoted with escapes.
    const listed = await runTool(['list'], env);
    assert.equal(listed.code, 0);
    const rows = listed.stdout.split('\n').filter((line) => line.startsWith('trk_'));
    assert.equal(rows.length, 2, listed.stdout);
    assert.ok(rows.some((row) => row.includes('"Title\\r\\nwith \\u001b]0;a terminal title\\u0007"')), listed.stdout);
    assert.ok(!listed.stdout.includes('\u001b') && !listed.stdout.includes('\u0007'));
  } finally {
    await db.drop();
    fs.rmSync(work, { recursive: true, force: true });
  }
});
