// Warming the engine's threads (engine/warm-up.ts, server/warm-engine.ts): every thread plans,
// the requests are ones real traffic sends, a warmed thread plans exactly as a cold one, and the
// server warms on its catalog's longest track, or says why not.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createEnginePool, type EnginePool, WARM_BATCH_PLANS } from '../../engine/pool.ts';
import { warmingRequest } from '../../engine/warm-up.ts';
import { deserialiseAnalysis } from '../../engine/analysis/serialise.ts';
import { planClip } from '../../engine/plan/plan-clip.ts';
import { warmEngine } from '../../server/warm-engine.ts';
import { climaxPiece } from '../support/synth.ts';
import { mp3Of } from '../support/audio.ts';
import { startTestServer } from '../support/server.ts';
import { ingestSignals } from '../support/ingest.ts';

const THREADS = 2;
let dir: string;
let pool: EnginePool;
let analysis: Uint8Array;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-warm-'));
  const file = path.join(dir, 'track.mp3');
  fs.writeFileSync(file, await mp3Of(climaxPiece(120, 75, 40)));
  pool = createEnginePool({ threads: THREADS });
  analysis = (await pool.analyse({ path: file })).bytes;
});
after(async () => {
  await pool.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('warming requests are what callers send: hit points inside [1, D - 1], lengths the track holds, all three modes', () => {
  const modes = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const request = warmingRequest(i, 45);
    modes.add(request.mode);
    assert.ok(request.durationSeconds <= 45, `D ${request.durationSeconds} fits a 45 s track`);
    if (request.hitPointSeconds !== undefined) {
      assert.ok(request.hitPointSeconds >= 1 && request.hitPointSeconds <= request.durationSeconds - 1, `H ${request.hitPointSeconds} in [1, D - 1]`);
    }
  }
  assert.deepEqual([...modes].sort(), ['edit', 'loop', 'segment']);
});

test('every thread is warmed, each with its share of the plans', async () => {
  // Both threads running before warming, as a server's are by the time it warms.
  await Promise.all([1, 2].map(() => pool.plan({ analysis, mode: 'edit', durationSeconds: 20, hitPointSeconds: 5 })));
  const plansPerThread = 3 * WARM_BATCH_PLANS;
  const planned = await pool.warm({ analysis, analysisKey: 'warm-test', plansPerThread });
  assert.equal(planned.size, THREADS, `threads that planned: ${[...planned.keys()]}`);
  for (const [thread, count] of planned) {
    // Impossible requests (a segment whose hit point the climax cannot meet) are typed errors, not plans.
    assert.ok(count > plansPerThread / 2 && count <= plansPerThread, `thread ${thread} made ${count} plans`);
  }
});

test('a warmed thread plans exactly as a plan made in this process', async () => {
  await pool.warm({ analysis, analysisKey: 'warm-same', plansPerThread: WARM_BATCH_PLANS });
  const local = deserialiseAnalysis(analysis);
  for (const hitPointSeconds of [2, 9.5, 17.25, 28]) {
    const request = { mode: 'edit' as const, durationSeconds: 30, hitPointSeconds };
    assert.deepEqual((await pool.plan({ analysis, analysisKey: 'warm-same', ...request })).plan, planClip(local, request));
  }
});

test('the server warms on its longest track, and says why when it cannot', async () => {
  const server = await startTestServer();
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  try {
    const { sql } = server.service.database;
    await warmEngine(sql, server.service.engine, logger, WARM_BATCH_PLANS);
    assert.deepEqual(lines.map((l) => [l.msg, l.reason]), [['engine not warmed', 'the catalog is empty']]);
    const tracks = [30, 70].map((seconds, i) => ({ file: `t${i}.mp3`, signal: climaxPiece(120, seconds, seconds / 2), metadata: { title: `Warm ${i}`, artist: 'Test' } }));
    await ingestSignals({ sql, pool: server.service.engine, storage: server.service.storage, tracks });
    const [longest] = await sql<{ id: string }[]>`SELECT id FROM tracks ORDER BY duration_seconds DESC LIMIT 1`;
    lines.length = 0;
    await warmEngine(sql, server.service.engine, logger, WARM_BATCH_PLANS);
    assert.equal(lines.length, 1);
    assert.equal(lines[0].msg, 'engine warmed');
    assert.equal(lines[0].track_id, longest.id);
    const byThread = Object.values(lines[0].plans_by_thread as Record<string, number>);
    assert.ok(byThread.length >= 1 && byThread.every((n) => n > 0), `plans by thread: ${JSON.stringify(lines[0].plans_by_thread)}`);
  } finally {
    await server.stop();
  }
});
