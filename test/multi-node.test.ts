// Several nodes that share nothing but PostgreSQL and one S3 bucket (s3rver), behind Debian's nginx
// with the repository's deploy/nginx.conf: a track ingested by the catalog CLI is found and
// downloaded byte for byte on every node; a node killed under paid load, with clients retrying
// through nginx with their Idempotency-Keys, leaves every request answered and charged once and
// every charged credit with exactly one usage record; a node started late serves at once; tracks
// ingested while all run are made by the nodes too, and found on every node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createTestDatabase } from './support/database.ts';
import { spawnServer, stopLeftovers, type SpawnedServer } from './support/server.ts';
import { startNginxFront, NGINX, type NginxFront } from './support/nginx-front.ts';
import { startTestS3, type TestS3 } from './support/s3-server.ts';
import { skipUnless } from './support/requirements.ts';
import { API } from './support/http.ts';
import { mp3Of } from './support/audio.ts';
import { climaxPiece, drumPattern } from './support/synth.ts';
import { connectSql } from '../db/connect.ts';
import { createApiKey } from '../billing/api-keys.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const NODES = 3;
const REQUESTS = 150;
// The kill lands once this many replies are back: mid-burst, with many requests in flight.
const KILL_AFTER_REPLIES = 40;
// Only detects a hang: a request whose Idempotency-Key the dead node held is answered 409 until a
// live node's sweep settles the dead one (its heartbeat 5 s old, billing/processes.ts).
const RETRY_FOR_MS = 90_000;
/** Files ingested while the nodes run: enough that the nodes' workers take some of them. */
const SPREAD_FILES = 12;

interface Outcome { status: number; bytes: Buffer; replayed: boolean }

function requestOf(i: number, trackId: string): { route: string; body: object } {
  switch (i % 3) {
    case 0: return { route: '/_test/paid', body: { delay_ms: 100 + (i % 7) * 100 } };
    case 1: return { route: '/search', body: { query: 'night drive', limit: 1 + (i % 5) } };
    default: return { route: '/download-track', body: { track_id: trackId, duration_seconds: 10 + (i % 9) } };
  }
}

async function send(base: string, key: string, route: string, body: object, idempotencyKey?: string): Promise<Outcome | undefined> {
  try {
    const response = await fetch(`${base}${API}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      body: JSON.stringify(body),
    });
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), replayed: response.headers.get('idempotent-replayed') === 'true' };
  } catch {
    return undefined; // the connection died with the node
  }
}

/** A client that retries what failed for want of a node (no answer, 502, 503, 409 in flight), with the same Idempotency-Key. */
async function sendUntilAnswered(base: string, key: string, i: number, trackId: string): Promise<Outcome[]> {
  const { route, body } = requestOf(i, trackId);
  const tries: Outcome[] = [];
  const deadline = Date.now() + RETRY_FOR_MS;
  for (;;) {
    const outcome = await send(base, key, route, body, `multi-node-${i}`);
    tries.push(outcome ?? { status: 0, bytes: Buffer.alloc(0), replayed: false }); // 0: no answer
    const retry = [0, 409, 502, 503, 504].includes(tries.at(-1)!.status);
    if (!retry || Date.now() > deadline) return tries;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** `npm run catalog -- ingest DIR` with `env`, as an operator runs it beside the nodes. */
async function ingestWithCli(env: Record<string, string>, files: Record<string, Uint8Array>, titles: Record<string, string>): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-cli-in-'));
  for (const [file, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), bytes);
  fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify(Object.keys(files).map((file) => ({ file, title: titles[file], artist: 'Test' }))));
  const child = spawn(process.execPath, ['--import', 'tsx', 'catalog/cli.ts', 'ingest', dir], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(code, 0, output);
  return output;
}

const titlesFound = async (base: string, key: string, query: string) => JSON.parse((await send(base, key, '/search', { query }))!.bytes.toString()).tracks.map((t: { title: string }) => t.title);

test(`${NODES} nodes, one database, one bucket, behind nginx: ingest anywhere, serve everywhere, a node killed under load, each request answered and charged once`, { skip: skipUnless(fs.existsSync(NGINX), 'Debian nginx') }, async () => {
  const db = await createTestDatabase();
  const sql = connectSql(db.url, 4);
  let s3: TestS3 | undefined;
  let front: NginxFront | undefined;
  const nodes: SpawnedServer[] = [];
  const dataDirs: string[] = [];
  const nodeEnv = () => {
    dataDirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'mla-node-')));
    return { DATABASE_URL: db.url, DATA_DIR: dataDirs.at(-1)!, ENABLE_TEST_ROUTES: '1', DEMO_TRACKS: '0', WORKERS: '1', ENGINE_WARMUP_PLANS: '0', ...s3!.env('multi') };
  };
  try {
    s3 = await startTestS3();
    for (let n = 0; n < NODES; n++) nodes.push(await spawnServer(nodeEnv()));
    front = await startNginxFront(nodes.map((node) => new URL(node.base).host));
    await sql`INSERT INTO tiers VALUES ('load', 100000, 0, 100000, NULL, true)`;
    const { key, id } = await createApiKey(sql, { name: 'multi', tier: 'load' });

    // Ingested by the CLI, with the nodes' environment: every node finds it and serves its bytes.
    const drive = await mp3Of(climaxPiece(120, 40, 20));
    await ingestWithCli(nodeEnv(), { 'drive.mp3': drive }, { 'drive.mp3': 'Night Drive' });
    const [{ id: trackId }] = await sql`SELECT id FROM tracks`;
    for (const node of nodes) {
      assert.equal((await titlesFound(node.base, key, 'night drive'))[0], 'Night Drive', node.base);
      const whole = await send(node.base, key, '/download-track', { track_id: trackId });
      assert.equal(whole?.status, 200);
      assert.ok(whole!.bytes.equals(Buffer.from(drive)), `${node.base}: the ingested bytes`);
    }
    const charged = async () => (await sql`SELECT 100000 - credits AS n FROM api_keys WHERE id = ${id}`)[0].n;
    const chargedBefore = await charged();

    // Paid load through nginx; one node is killed mid-burst; clients retry through nginx.
    let replies = 0;
    let kill!: () => void;
    const killed = new Promise<void>((resolve) => (kill = resolve));
    const load = Array.from({ length: REQUESTS }, (_, i) => sendUntilAnswered(front!.base, key, i, trackId).then((tries) => {
      if (++replies === KILL_AFTER_REPLIES) kill();
      return tries;
    }));
    await killed;
    nodes[0].child.kill('SIGKILL');
    const outcomes = await Promise.all(load);
    const last = outcomes.map((tries) => tries.at(-1));
    const interrupted = outcomes.filter((tries) => tries.length > 1).length;
    assert.ok(interrupted > 0, 'the kill landed while requests were in flight on the killed node');
    assert.deepEqual(last.map((o, i) => (o?.status === 200 ? 200 : `${i}: ${o?.status} ${o?.bytes.toString().slice(0, 200)}`)).filter((s) => s !== 200), [], 'every request answered');
    // A request answered twice (it was retried after its first answer was lost) got the same reply, replayed.
    for (const tries of outcomes) {
      const answers = tries.filter((o) => o.status === 200);
      for (const again of answers.slice(1)) assert.ok(again.replayed && again.bytes.equals(answers[0].bytes));
    }

    // Each request charged once; each charged credit has one usage record with 1, and no other record claims one.
    assert.equal((await charged()) - chargedBefore, REQUESTS);
    const [usage] = await sql`SELECT count(*) FILTER (WHERE credits_consumed = 1)::int AS paid, coalesce(sum(credits_consumed), 0)::int AS credits, count(*) FILTER (WHERE credits_consumed NOT IN (0, 1))::int AS odd FROM usage_records WHERE key_id = ${id}`;
    assert.deepEqual(usage, { paid: await charged(), credits: await charged(), odd: 0 });
    const downloads = Array.from({ length: REQUESTS }, (_, i) => i).filter((i) => i % 3 === 2).length;
    const [licenses] = await sql`SELECT count(*)::int AS n FROM licenses WHERE key_id = ${id} AND track_id = ${trackId} AND duration_seconds IS NOT NULL`;
    assert.equal(licenses.n, downloads);
    // Retried again, everything is a replay: nothing more is charged.
    const again = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => send(front!.base, key, requestOf(i, trackId).route, requestOf(i, trackId).body, `multi-node-${i}`)));
    assert.deepEqual(again.filter((o) => !(o?.status === 200 && o.replayed)).length, 0);
    assert.equal((await charged()) - chargedBefore, REQUESTS);

    // A node started late serves at once, from the bucket.
    const late = await spawnServer(nodeEnv());
    nodes.push(late);
    const fromLate = await send(late.base, key, '/download-track', { track_id: trackId });
    assert.ok(fromLate?.status === 200 && fromLate.bytes.equals(Buffer.from(drive)));

    // Tracks ingested while the nodes run are made by the nodes too, and found on every live node.
    const beats: Record<string, Uint8Array> = {};
    const titles: Record<string, string> = {};
    for (let i = 0; i < SPREAD_FILES; i++) {
      beats[`beat-${i}.mp3`] = await mp3Of(drumPattern(96 + i, 11, 0.5, 40 + i));
      titles[`beat-${i}.mp3`] = i === 0 ? 'Lantern Beat' : `Beat ${i}`;
    }
    await ingestWithCli({ ...nodeEnv(), WORKERS: '1' }, beats, titles);
    const makers = await sql`SELECT DISTINCT split_part(done_by, ':', 2) AS pid FROM ingest_jobs WHERE file LIKE 'beat-%'`;
    const nodePids = new Set(nodes.map((node) => String(node.child.pid)));
    assert.ok(makers.some((m) => nodePids.has(m.pid)), `the running nodes made some of the jobs (made by ${makers.map((m) => m.pid).join(', ')})`);
    for (const node of nodes.slice(1)) assert.equal((await titlesFound(node.base, key, 'lantern beat'))[0], 'Lantern Beat', node.base);
  } finally {
    await front?.stop();
    await stopLeftovers(nodes);
    await s3?.stop();
    await sql.end();
    await db.drop();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  }
});
