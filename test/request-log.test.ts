// The log of `npm start`: JSON lines on stdout, one per request (request id, route, status,
// duration, the key's display prefix, credits), startup and shutdown lines; never a whole key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from './support/database.ts';
import { spawnServer, stopLeftovers, type SpawnedServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { connectSql } from '../db/connect.ts';
import { createApiKey } from '../billing/api-keys.ts';

/** The JSON lines of the server's stdout (the banner on stderr is not JSON). */
function logLines(output: string): Record<string, any>[] {
  return output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
}

// Only detects a hang: the log is written asynchronously, and on a busy machine a line may take a while.
const LINE_HANG_MS = 30_000;

async function waitForLine(server: SpawnedServer, found: (line: Record<string, any>) => boolean): Promise<Record<string, any>> {
  const deadline = Date.now() + LINE_HANG_MS;
  for (;;) {
    const line = logLines(server.output()).find(found);
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no such log line in:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a JSON line per request with its id, route, status, duration, key prefix and credits; no whole key', async () => {
  const db = await createTestDatabase();
  const sql = connectSql(db.url, 2);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-log-'));
  let server: SpawnedServer | undefined;
  try {
    server = await spawnServer({ DATABASE_URL: db.url, DATA_DIR: dataDir, ENABLE_TEST_ROUTES: '1', DEMO_TRACKS: '0', LOG_LEVEL: 'info' });
    const started = await waitForLine(server, (line) => line.msg === 'listening');
    assert.equal(started.level, 30);
    assert.equal(`http://127.0.0.1:${started.port}`, server.base);
    const { key, prefix } = await createApiKey(sql, { name: 'log', tier: 'starter' });

    const me = await call(server.base, 'GET', `${API}/me`, key);
    const paid = await call(server.base, 'POST', `${API}/_test/paid`, key, {});
    const unknownKey = `mla_${'A'.repeat(43)}`;
    const refused = await call(server.base, 'GET', `${API}/me`, unknownKey);
    const missing = await call(server.base, 'GET', '/nowhere');
    assert.deepEqual([me.status, paid.status, refused.status, missing.status], [200, 200, 401, 404]);

    const lineOf = (response: typeof me) => waitForLine(server!, (line) => line.req_id === response.headers.get('x-request-id'));
    const meLine = await lineOf(me);
    assert.equal(meLine.msg, 'request');
    assert.equal(meLine.level, 30);
    assert.equal(meLine.route, '/me');
    assert.equal(meLine.status, 200);
    assert.equal(meLine.key, prefix);
    assert.equal(meLine.credits, 0);
    assert.ok(Number.isFinite(meLine.ms) && meLine.ms >= 0, `ms ${meLine.ms}`);
    assert.equal(typeof meLine.time, 'number');
    const paidLine = await lineOf(paid);
    assert.deepEqual([paidLine.route, paidLine.status, paidLine.key, paidLine.credits], ['/_test/paid', 200, prefix, 1]);
    const refusedLine = await lineOf(refused);
    assert.deepEqual([refusedLine.route, refusedLine.status, refusedLine.key], ['/me', 401, unknownKey.slice(0, prefix.length)]);
    const missingLine = await lineOf(missing);
    assert.deepEqual([missingLine.route, missingLine.status, missingLine.key], ['(unmatched)', 404, undefined]);

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    const messages = logLines(server.output()).map((line) => line.msg);
    for (const msg of ['shutting down', 'stopping: finishing requests in flight, flushing usage', 'stopped']) assert.ok(messages.includes(msg), `"${msg}" logged`);
    // Neither key appears whole anywhere in what the server wrote.
    assert.ok(!server.output().includes(key), 'the whole key was logged');
    assert.ok(!server.output().includes(unknownKey), 'the whole unknown key was logged');
  } finally {
    await stopLeftovers([server]);
    await sql.end();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
