// The sign-in throttle's count per client address behind a front (deploy/nginx.conf, which sets
// X-Forwarded-For to the address it was reached from): with the front's address in
// TRUSTED_PROXIES, each client it forwards is counted apart, so one client's guesses cannot lock
// every other out; a client's own X-Forwarded-For, sent past no trusted front, is never believed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { login, newAccount, TEST_PASSWORD } from './support/dashboard.ts';
import { ADDRESS_FREE_FAILURES } from '../billing/login-throttle.ts';
import { clientAddress } from '../server/http/client-address.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ trustedProxies: new Set(['127.0.0.1']) });
});
after(() => server.stop());

const from = (address: string) => ({ 'x-forwarded-for': address });

test('behind a trusted front, one client\'s wrong passwords make that client wait, not the others', async () => {
  const sql = server.service.database.sql;
  await newAccount(sql, 'owner@example.com');
  // Failures for as many emails, so no account's own limit is reached first.
  for (let i = 0; i < ADDRESS_FREE_FAILURES; i++) {
    assert.equal((await login(server.base, `guess${i}@example.com`, 'wrong password', from('203.0.113.7'))).status, 401);
  }
  const guesser = await login(server.base, 'owner@example.com', TEST_PASSWORD, from('203.0.113.7'));
  assert.equal(guesser.status, 429, 'the guessing client waits, even with the right password');
  const owner = await login(server.base, 'owner@example.com', TEST_PASSWORD, from('198.51.100.9'));
  assert.equal(owner.status, 200, 'another client forwarded by the same front signs in');
});

test('X-Forwarded-For is believed only from a trusted peer, and then only its last address', () => {
  const trusted = new Set(['10.0.0.2']);
  assert.equal(clientAddress('203.0.113.7', '198.51.100.9', trusted), '203.0.113.7');
  assert.equal(clientAddress('203.0.113.7', '198.51.100.9', new Set()), '203.0.113.7');
  assert.equal(clientAddress('10.0.0.2', '198.51.100.9', trusted), '198.51.100.9');
  assert.equal(clientAddress('10.0.0.2', 'spoofed, 198.51.100.9', trusted), '198.51.100.9');
  assert.equal(clientAddress('10.0.0.2', '', trusted), '10.0.0.2');
});
