// The report of `npm run catalog -- ingest`: one line per file, whatever its name holds. A name with
// a newline or an escape sequence is printed quoted, with escapes, so it can neither split its line
// nor drive the terminal.
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

function runIngest(dir: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'catalog/cli.ts', 'ingest', dir], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.resume();
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout })));
}

test('a file name with a newline or an escape sequence keeps to one quoted line of the report', async () => {
  const db = await createTestDatabase();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-report-'));
  const dir = path.join(work, 'in');
  fs.mkdirSync(dir);
  try {
    const names = { good: 'two\nlines.mp3', bad: 'red\u001b[31m.mp3', plain: 'plain.mp3' };
    fs.writeFileSync(path.join(dir, names.good), await mp3Of(drumPattern(100, 11)));
    fs.writeFileSync(path.join(dir, names.plain), await mp3Of(drumPattern(120, 11)));
    fs.writeFileSync(path.join(dir, names.bad), 'not audio');
    fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify(Object.values(names).map((file) => ({ file, title: 'Named', artist: 'Test' }))));
    const { code, stdout } = await runIngest(dir, { DATABASE_URL: db.url, DATA_DIR: path.join(work, 'data'), WORKERS: '1' });
    assert.equal(code, 3, stdout); // one file rejected
    const lines = stdout.split('\n').filter((line) => /^(ingested|unchanged|rejected) /.test(line));
    assert.equal(lines.length, 3, stdout);
    assert.ok(lines.some((line) => /^ingested\s+trk_\w+\s+"two\\nlines\.mp3"$/.test(line)), stdout);
    assert.ok(lines.some((line) => /^ingested\s+trk_\w+\s+plain\.mp3$/.test(line)), stdout);
    assert.ok(lines.some((line) => line.startsWith('rejected  "red\\u001b[31m.mp3": ')), stdout);
    assert.ok(!stdout.includes('\u001b'), 'no escape character reaches the terminal');
  } finally {
    await db.drop();
    fs.rmSync(work, { recursive: true, force: true });
  }
});
