// An ingest stopped in the middle (kill -9 of `npm run catalog -- ingest`) and run again: it goes on
// where it stopped, every file made into a track once, none lost: 50 files, exactly 50 tracks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { createTestDatabase } from '../support/database.ts';
import { connectSql } from '../../db/connect.ts';
import { migrate } from '../../db/migrate.ts';
import { drumPattern } from '../support/synth.ts';
import { mp3Of } from '../support/audio.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const FILES = 50;
// The kill lands once this many tracks are written: well into the run, well before its end.
const KILL_AT_TRACKS = 12;

function ingest(dir: string, env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'catalog/cli.ts', 'ingest', dir], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return { child, output: () => output, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
}

test(`an ingest of ${FILES} files killed midway and run again ends with exactly ${FILES} tracks, none made twice`, async () => {
  const db = await createTestDatabase();
  const sql = connectSql(db.url, 2);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-resume-'));
  const dir = path.join(work, 'in');
  fs.mkdirSync(dir);
  try {
    await migrate(sql);
    const metadata = [];
    for (let i = 0; i < FILES; i++) {
      const file = `beat-${String(i).padStart(2, '0')}.mp3`;
      fs.writeFileSync(path.join(dir, file), await mp3Of(drumPattern(90 + i, 11, 0.5, 100 + i)));
      metadata.push({ file, title: `Beat ${i}`, artist: 'Test' });
    }
    fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify(metadata));
    const env = { DATABASE_URL: db.url, DATA_DIR: path.join(work, 'data'), WORKERS: '2' };
    const tracks = async () => (await sql`SELECT id FROM tracks`).map((r) => r.id as string);

    const first = ingest(dir, env);
    while ((await tracks()).length < KILL_AT_TRACKS && first.child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    first.child.kill('SIGKILL');
    await first.exited;
    const before = await tracks();
    assert.ok(before.length >= KILL_AT_TRACKS && before.length < FILES, `${before.length} tracks when killed: the kill must land midway`);

    const second = ingest(dir, env);
    assert.equal(await second.exited, 0, second.output());
    const ingested = [...second.output().matchAll(/^ingested\s+(trk_\w+)/gm)].map((m) => m[1]);
    const unchanged = [...second.output().matchAll(/^unchanged\s+(trk_\w+)/gm)].map((m) => m[1]);
    assert.equal(ingested.length + unchanged.length, FILES, second.output());
    assert.deepEqual(new Set(unchanged), new Set(before), 'the files done before the kill are not done again');
    const after = await tracks();
    assert.equal(after.length, FILES);
    assert.equal(new Set(after).size, FILES);
  } finally {
    await sql.end();
    await db.drop();
    fs.rmSync(work, { recursive: true, force: true });
  }
});
