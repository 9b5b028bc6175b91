// The worker pool: real threads, busy when the queue is full, recovery after a crash, determinism.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEnginePool, type EnginePool } from '../../engine/pool.ts';
import { isEngineError } from '../../engine/errors.ts';
import { climaxPiece } from '../support/synth.ts';
import { mp3Of } from '../support/audio.ts';

let dir: string;
let file: string;
let pool: EnginePool;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-pool-'));
  file = path.join(dir, 'track.mp3');
  fs.writeFileSync(file, await mp3Of(climaxPiece(120, 90, 40)));
  pool = createEnginePool({ threads: 2, maxQueue: 2, idleTimeoutMs: 5000 });
});
after(async () => {
  await pool.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('analyse and clip run in worker threads and agree with the file', async () => {
  const { analysis, bytes } = await pool.analyse({ path: file });
  assert.ok(Math.abs(analysis.tempoBpm - 120) < 1);
  assert.ok(Math.abs(analysis.peakSeconds - 40) <= 0.5);
  const clip = await pool.clip({ path: file, analysis: bytes, durationSeconds: 20, hitPointSeconds: 5 });
  assert.ok(clip.mp3.length > 20 * 16000 * 0.9);
  assert.ok(Math.abs(clip.plan.peakInClipSeconds! - 5) <= 1);
});

test('a full queue is a typed busy error, and the pool keeps serving', async () => {
  const { bytes } = await pool.analyse({ path: file });
  const results = await Promise.allSettled(
    Array.from({ length: 8 }, () => pool.clip({ path: file, analysis: bytes, durationSeconds: 30 })),
  );
  const busy = results.filter((r) => r.status === 'rejected' && isEngineError(r.reason) && r.reason.code === 'busy');
  const done = results.filter((r) => r.status === 'fulfilled');
  assert.ok(busy.length >= 1, 'some were refused');
  assert.ok(done.length >= 2, 'threads + queue were served');
  assert.equal(busy.length + done.length, 8);
  await pool.clip({ path: file, analysis: bytes, durationSeconds: 10 });
});

test('a crashed worker fails only its task; the pool recovers', async () => {
  const { bytes } = await pool.analyse({ path: file });
  const running = pool.clip({ path: file, analysis: bytes, durationSeconds: 20 });
  await pool.crashOneWorker();
  await running; // the other thread's task is unaffected
  const after = await pool.clip({ path: file, analysis: bytes, durationSeconds: 20 });
  assert.ok(after.mp3.length > 0);
  assert.equal(pool.status().threads, 2);
});

test('clips are deterministic across threads', async () => {
  const { bytes } = await pool.analyse({ path: file });
  const clips = await Promise.all([1, 2].map(() => pool.clip({ path: file, analysis: bytes, durationSeconds: 15, hitPointSeconds: 3 })));
  assert.deepEqual(Buffer.from(clips[0].mp3), Buffer.from(clips[1].mp3));
});

test('engine errors cross the thread boundary typed', async () => {
  const { bytes } = await pool.analyse({ path: file });
  await assert.rejects(pool.clip({ path: file, analysis: bytes, durationSeconds: 200 }), (err) => isEngineError(err) && err.code === 'duration_unavailable');
  const junk = path.join(dir, 'junk.mp3');
  fs.writeFileSync(junk, 'not audio at all');
  await assert.rejects(pool.analyse({ path: junk }), (err) => isEngineError(err) && err.code === 'invalid_audio');
});
