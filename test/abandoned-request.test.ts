// A paid request whose client goes away before the reply still leaves exactly one usage record
// (status 499, 0 credits: its charge is given back) and one request log line, whichever way it
// was being charged.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call, rawPost } from './support/http.ts';
import { createLogger } from '../server/observability/logger.ts';

let server: TestServer;
const lines: Record<string, any>[] = [];
before(async () => {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.startsWith('{')) lines.push(JSON.parse(line));
      done();
    },
  });
  server = await startTestServer({}, createLogger({ level: 'info', destination }));
});
after(() => server.stop());

async function until<T>(what: string, find: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// /_test/answer is charged while its answer is worked out (as search is); /_test/paid reserves
// first. Each works to the end, or stops when its client has gone.
for (const [path, finishAfterAbort] of [['/_test/answer', true], ['/_test/answer', false], ['/_test/paid', true], ['/_test/paid', false]] as const) {
  const how = finishAfterAbort ? 'works on' : 'stops';
  test(`a client that leaves during a charged ${path} that ${how} gets a 499 usage record with 0 credits and a log line`, async () => {
    const key = await server.newKey('pro');
    const sql = server.service.database.sql;
    const [{ id: keyId }] = await sql`SELECT id FROM api_keys ORDER BY id DESC LIMIT 1`;
    for (let i = 0; i < 5; i++) {
      const socket = await rawPost(server.base, `${API}${path}`, key, { delay_ms: 150, finish_after_abort: finishAfterAbort });
      await new Promise((r) => setTimeout(r, 40));
      socket.destroy();
    }
    // Settled: five records, none of them a charge still being given back.
    const records = await until('five settled usage records', async () => {
      const rows = await sql`SELECT status_code, credits_consumed, request_id FROM usage_records WHERE key_id = ${keyId} ORDER BY id`;
      return rows.length === 5 && rows.every((row) => row.status_code === 499) ? rows : undefined;
    }).catch(async (err) => {
      const rows = await sql`SELECT status_code, credits_consumed, request_id FROM usage_records WHERE key_id = ${keyId} ORDER BY id`;
      throw new Error(`${err.message}: ${JSON.stringify(rows)}`);
    });
    for (const record of records) {
      assert.equal(record.status_code, 499);
      assert.equal(record.credits_consumed, 0);
      const logged = lines.filter((line) => line.msg === 'request' && line.req_id === record.request_id);
      assert.equal(logged.length, 1, `one log line for ${record.request_id}`);
      assert.equal(logged[0].status, 499);
    }
    assert.equal((await call(server.base, 'GET', `${API}/me`, key)).body.credits_remaining, 50000);
  });
}
