// The balance a process shows (GET /me, X-Credits-Remaining) after a burst of concurrent charges,
// refunds and give-backs of one key is the ledger's: requests that settle out of order never leave
// an older balance in place of a newer one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { hashApiKey } from '../billing/api-keys.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

const ROUNDS = 5;
const BURST = 48;

test('after a burst with refunds, GET /me shows exactly the ledger balance', async () => {
  const sql = server.service.database.sql;
  const key = await server.newKey('pro');
  for (let round = 0; round < ROUNDS; round++) {
    // Successes and failures on both charging paths (reserve then commit or refund; charged while
    // answering, then kept or given back), with delays that make them settle in a shuffled order.
    const burst = Array.from({ length: BURST }, (_, i) => {
      const path = i % 2 === 0 ? '/_test/paid' : '/_test/answer';
      return call(server.base, 'POST', `${API}${path}`, key, { fail: i % 3 === 0, delay_ms: (i * 7) % 23 });
    });
    const responses = await Promise.all(burst);
    assert.ok(responses.every((r) => r.status === 200 || r.status === 503), JSON.stringify(responses.map((r) => r.status)));
    const [{ credits }] = await sql`SELECT credits FROM api_keys WHERE key_hash = ${hashApiKey(key)}`;
    const me = await call(server.base, 'GET', `${API}/me`, key);
    assert.equal(me.body.credits_remaining, credits, `round ${round}: GET /me against the ledger`);
    assert.equal(me.headers.get('x-credits-remaining'), String(credits), `round ${round}: X-Credits-Remaining`);
  }
});
