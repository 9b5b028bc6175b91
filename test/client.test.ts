// The typed client (client/) against the real server: paging until the short last page, a
// streamed download, spec 7's rules with real replies: a free key's 429 waited out (Retry-After)
// and retried under the same Idempotency-Key, a 402 never retried, a 503 (the database taken
// away) retried until it answers.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';
import { movableClock } from './support/window-clock.ts';
import { ingestSignals } from './support/ingest.ts';
import { drumPattern } from './support/synth.ts';
import { createProxiedDatabase, type ProxiedDatabase } from './support/proxied-database.ts';
import { createClient, ApiRequestError, type RetryPolicy } from '../client/client.ts';
import { hashApiKey } from '../billing/api-keys.ts';

const clock = movableClock();
let server: TestServer;
let database: ProxiedDatabase;
let trackId: string;

before(async () => {
  database = await createProxiedDatabase();
  server = await startTestServer({ databaseUrl: database.url, windowClock: clock });
  await ingestSignals({
    sql: server.service.database.sql,
    pool: server.service.engine,
    storage: server.service.storage,
    tracks: [{ file: 'drums.mp3', signal: drumPattern(100, 20), metadata: { title: 'Drums', artist: 'Test' } }],
  });
  [{ id: trackId }] = await server.service.database.sql`SELECT id FROM tracks`;
});
after(async () => {
  database.restore();
  await server.stop();
  await database.drop();
});

/** A client whose every attempt (retries included) is recorded: method, path, status, headers sent. */
function recordedClient(apiKey: string, retry: Partial<RetryPolicy> = {}) {
  const attempts: { path: string; status: number; idempotencyKey: string | null }[] = [];
  const retries: { status: number | 'network'; waitMs: number }[] = [];
  const client = createClient({
    baseUrl: server.base,
    apiKey,
    retry: {
      backoffMs: 50,
      ...retry,
      onRetry: (r) => {
        retries.push(r);
        retry.onRetry?.(r);
      },
    },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const headers = new Headers(init?.headers);
      attempts.push({ path: new URL(String(input)).pathname, status: response.status, idempotencyKey: headers.get('idempotency-key') });
      return response;
    },
  });
  return { client, attempts, retries };
}

async function streamedBytes(stream: ReadableStream<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream) bytes += chunk.byteLength;
  return bytes;
}

describe('independent keys, run side by side', { concurrency: true }, () => {
  test('downloads stream; licensePages and usagePages stop after the short last page', async () => {
    const { client, attempts } = recordedClient(await server.newKey('pro'));
    const licenseIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const download = await client.downloadTrack({ track_id: trackId });
      assert.equal(download.trackId, trackId);
      assert.equal(await streamedBytes(download.body), Number(download.headers.get('content-length')));
      licenseIds.push(download.licenseId!);
    }
    const pages = [];
    for await (const page of client.licensePages(2)) pages.push(page.licenses.map((l) => l.license_id));
    assert.deepEqual(pages, [licenseIds.slice(3).reverse(), licenseIds.slice(1, 3).reverse(), [licenseIds[0]]]);
    const certificate = await client.license(licenseIds[0]);
    assert.equal(certificate.certificate.license_id, licenseIds[0]);
    // Every paid call carries an Idempotency-Key, similar tracks too, so its retries are charged once.
    await client.similarTracks(trackId, 3);
    assert.ok(attempts.filter((a) => /\/(download-track|similar)$/.test(a.path)).every((a) => a.idempotencyKey), 'an Idempotency-Key on every paid call');

    // Reading /usage adds a record per page (newest first), so the history grows as it is read;
    // the iterator still ends on the first page shorter than its limit.
    const sizes = [];
    for await (const page of client.usagePages(3)) sizes.push(page.usage.length);
    assert.ok(sizes.length >= 2 && sizes.slice(0, -1).every((n) => n === 3) && sizes.at(-1)! < 3, `page sizes ${sizes}`);
  });

  test('a free key over its per-minute limit: the client waits Retry-After and retries with the same Idempotency-Key', async () => {
    const key = await server.newKey('free'); // 5 a minute
    // Late in a minute, so the window that refuses ends (and the client's real wait) within seconds.
    clock.toMinuteEnd(4_000);
    const { client, attempts, retries } = recordedClient(key);
    for (let i = 0; i < 5; i++) await client.me();
    const found = await client.search({ query: 'drums' });
    assert.equal(found.tracks[0].id, trackId);
    const searches = attempts.filter((a) => a.path.endsWith('/search'));
    assert.deepEqual(searches.map((a) => a.status), [429, 200]);
    assert.ok(searches[0].idempotencyKey && searches[0].idempotencyKey === searches[1].idempotencyKey, 'one Idempotency-Key for both attempts');
    assert.equal(retries.length, 1);
    assert.ok(retries[0].waitMs >= 1000 && retries[0].waitMs <= 6_000, `waited ${retries[0].waitMs} ms`);
    assert.equal(found.credits_remaining, 49, 'charged once');
  });

  test('402 is never retried', async () => {
    const key = await server.newKey('starter');
    await server.service.database.sql`UPDATE api_keys SET credits = 0 WHERE key_hash = ${hashApiKey(key)}`;
    const { client, attempts, retries } = recordedClient(key);
    await assert.rejects(client.search({ query: 'drums' }), (err: ApiRequestError) => err.status === 402 && err.code === 'insufficient_credits');
    await assert.rejects(client.downloadTrack({ track_id: trackId }), (err: ApiRequestError) => err.status === 402);
    assert.equal(attempts.length, 2);
    assert.deepEqual(retries, []);
  });

  test('other errors come back as ApiRequestError with the code and request id, unretried', async () => {
    const { client, attempts } = recordedClient(await server.newKey('starter'));
    await assert.rejects(client.trackAnalysis('trk_0000000000000000'), (err: ApiRequestError) =>
      err.status === 404 && err.code === 'not_found' && /^req_/.test(err.requestId ?? ''));
    await assert.rejects(client.clipPlan({ track_id: trackId, mode: 'loop' }), (err: ApiRequestError) => err.status === 400 && err.code === 'invalid_parameters');
    assert.equal(attempts.length, 2);
  });
});

test('503 while the database is away: retried after its Retry-After, answered once it is back', async () => {
  const key = await server.newKey('starter'); // not yet admitted: its admission needs the database
  const { client, attempts, retries } = recordedClient(key, {
    onRetry: () => database.restore(), // back before the retry
  });
  database.takeAway();
  try {
    const me = await client.me();
    assert.equal(me.tier, 'starter');
  } finally {
    database.restore();
  }
  assert.equal(attempts[0].status, 503);
  assert.equal(attempts.at(-1)!.status, 200);
  assert.equal(retries[0].status, 503);
  assert.equal(retries[0].waitMs, 2_000, "the 503's Retry-After");
});
