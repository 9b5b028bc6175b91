// The embedded PostgreSQL of `npm start`: starts in DATA_DIR/pg, keeps data between starts,
// recovers from a stale postmaster.pid left by a crash, is stopped by our shutdown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnServer, stopLeftovers, type SpawnedServer } from './support/server.ts';
import { API } from './support/http.ts';

function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'pg', 'postmaster.pid');
  return fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').split('\n')[0]) : undefined;
}

test('npm start on an empty data dir, restart with a stale postmaster.pid, data kept, database stopped on exit', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-embedded-'));
  fs.chmodSync(dataDir, 0o755);
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
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
