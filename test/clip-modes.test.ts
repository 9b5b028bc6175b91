// Edit and loop modes and the clip plan over real HTTP: validation, X-Clip-Plan on every clip,
// POST /clip-plan free and identical to what the download does, the plan matching the audio.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';
import { API } from './support/http.ts';
import { climaxPiece, drumPattern } from './support/synth.ts';
import { LANDING_SECONDS } from '../engine/plan/plan.ts';
import { decodeMp3 } from './support/audio.ts';
import { ingestSignals } from './support/ingest.ts';
import { storePath } from '../catalog/store.ts';
import { hashApiKey } from '../billing/api-keys.ts';
import { planMatchesAudio } from './support/plan-audio.ts';

/** Where an edit's plan says its peak plays, against H: the part that plays it is placed to the sample, then rounded to 3 decimals. */
const PEAK_PLACEMENT_SECONDS = 0.0005 + 1 / 44100;
/** An inner join's bar lines move onto the MP3 frame grid by at most half a frame (engine/plan/frame-align.ts). */
const JOIN_ON_LINE_SECONDS = 576 / 44100 + 0.001;

let server: TestServer;
let track: { id: string; audio_sha256: string };
/** A drum loop at one level throughout: no climax any plan can put at H. */
let flatLoop: { id: string };

before(async () => {
  server = await startTestServer();
  await ingestSignals({
    sql: server.service.database.sql,
    pool: server.service.engine,
    storage: server.service.storage,
    tracks: [
      { file: 'climax.mp3', signal: climaxPiece(120, 90, 50), metadata: { title: 'Climax', artist: 'Test' } },
      { file: 'loop.mp3', signal: drumPattern(120, 90), metadata: { title: 'Drum loop', artist: 'Test' } },
    ],
  });
  [track] = await server.service.database.sql`SELECT id, audio_sha256 FROM tracks WHERE title = 'Climax'`;
  [flatLoop] = await server.service.database.sql`SELECT id FROM tracks WHERE title = 'Drum loop'`;
});
after(() => server.stop());

async function post(key: string, route: string, body: unknown) {
  const response = await fetch(`${server.base}${API}${route}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, json: () => JSON.parse(Buffer.from(bytes).toString()) };
}

async function credits(key: string): Promise<number> {
  const [row] = await server.service.database.sql`SELECT credits FROM api_keys WHERE key_hash = ${hashApiKey(key)}`;
  return row.credits;
}

test('mode is validated: unknown modes, edit or loop without duration_seconds, loop with a hit point are 400s that cost nothing', async () => {
  const key = await server.newKey('starter');
  const before = await credits(key);
  const cases: [unknown, RegExp][] = [
    [{ track_id: track.id, duration_seconds: 20, mode: 'remix' }, /mode must be one of segment, edit, loop/],
    [{ track_id: track.id, duration_seconds: 20, mode: 3 }, /mode must be one of/],
    [{ track_id: track.id, mode: 'edit' }, /mode "edit" requires duration_seconds/],
    [{ track_id: track.id, mode: 'loop' }, /mode "loop" requires duration_seconds/],
    [{ track_id: track.id, duration_seconds: 20, hit_point_seconds: 5, mode: 'loop' }, /cannot be used with mode "loop"/],
  ];
  for (const route of ['/download-track', '/clip-plan']) {
    for (const [body, message] of cases) {
      const response = await post(key, route, body);
      assert.equal(response.status, 400, `${route} ${JSON.stringify(body)}`);
      assert.equal(response.json().code, 'invalid_parameters');
      assert.match(response.json().message, message);
    }
  }
  assert.equal(await credits(key), before);
});

test('every clip carries X-Clip-Plan; /clip-plan is free and returns the same plan; the plan matches the audio', async () => {
  const key = await server.newKey('pro');
  const source = await decodeMp3(new Uint8Array(await import('node:fs').then((fs) => fs.readFileSync(storePath(path.join(server.dataDir, 'catalog'), track.audio_sha256, 'audio')))));
  const bodies = [
    { track_id: track.id, duration_seconds: 20, hit_point_seconds: 8 },
    { track_id: track.id, duration_seconds: 20, hit_point_seconds: 8, mode: 'segment' },
    { track_id: track.id, duration_seconds: 30, hit_point_seconds: 12, mode: 'edit' },
    { track_id: track.id, duration_seconds: 25, mode: 'edit' },
    { track_id: track.id, duration_seconds: 16, mode: 'loop' },
  ];
  for (const body of bodies) {
    const before = await credits(key);
    const plan = await post(key, '/clip-plan', body);
    assert.equal(plan.status, 200, JSON.stringify(plan.json()));
    assert.equal(await credits(key), before, '/clip-plan costs nothing');
    const p = plan.json();
    const again = await post(key, '/clip-plan', body); // the plan kept in memory: the same reply, free too
    assert.equal(again.status, 200, JSON.stringify(again.json()));
    assert.deepEqual(again.json(), p, 'a repeated /clip-plan answers the same plan');
    assert.equal(await credits(key), before, 'a repeated /clip-plan costs nothing');
    assert.equal(p.mode, body.mode ?? 'segment');
    assert.equal(p.duration_seconds, body.duration_seconds);
    assert.ok(['track_end', 'bar_line', 'beat', 'cut'].includes(p.ending));
    const edit = body.mode === 'edit' && body.hit_point_seconds !== undefined;
    assert.equal(p.hit_point_landing, edit ? 'sure' : null, `hit_point_landing ${p.hit_point_landing}`);
    assert.equal(p.hit_point_anchor, edit ? 'peak' : null);
    assert.ok(p.beats.length > 0 && p.beats.every((t: number) => t >= 0 && t <= body.duration_seconds), 'the beats in clip time');
    assert.ok(p.downbeats.every((t: number) => p.beats.some((b: number) => Math.abs(b - t) < 0.002)), 'every downbeat is one of the beats');
    // Every inner join leaves a bar line and enters one: the clip keeps the beat across it.
    for (const [i, part] of p.parts.entries()) {
      if (i === 0) continue;
      const seam = part.clip_start + part.crossfade_ms / 2000;
      assert.ok(p.downbeats.some((t: number) => Math.abs(t - seam) <= JOIN_ON_LINE_SECONDS), `${JSON.stringify(body)}: the join at ${seam.toFixed(3)} s is on a downbeat of the clip (${p.downbeats.join(', ')})`);
    }
    const clip = await post(key, '/download-track', body);
    assert.equal(clip.status, 200);
    assert.equal(await credits(key), before - 1);
    assert.equal(clip.headers.get('x-hit-point-landing'), p.hit_point_landing, 'X-Hit-Point-Landing is the plan\'s hit_point_landing');
    const header = JSON.parse(clip.headers.get('x-clip-plan')!);
    assert.deepEqual(header, p.parts.map((part: any) => [part.clip_start, part.source_start, part.length]), 'the download follows the plan /clip-plan showed');
    const pcm = await decodeMp3(clip.bytes);
    assert.equal(pcm.channels[0].length, Math.round(body.duration_seconds * 44100), `${JSON.stringify(body)}: exact length`);
    assert.ok(Math.abs(p.stretch - 1) <= 0.01, `stretch ${p.stretch}`);
    const total = header.reduce((sum: number, [, , length]: number[]) => sum + length, 0);
    assert.ok(Math.abs(total - body.duration_seconds) < 0.002, 'the parts add up to D');
    // The part playing the peak moves by less than an onset phase to the analysis's frames (frame-align.ts onOnsetPhase).
    if (body.hit_point_seconds !== undefined && body.mode === 'edit') assert.ok(Math.abs(p.peak_in_clip_seconds - body.hit_point_seconds) <= PEAK_PLACEMENT_SECONDS, `an edit puts the peak at H: ${p.peak_in_clip_seconds}`);
    planMatchesAudio(header, pcm, source, p.stretch);
  }
});

test('hit_point_landing tells the truth: "sure" exactly where the track\'s peak plays within 25 ms of H, and what was placed at H is named', async () => {
  const key = await server.newKey('pro');
  for (const [duration, hit] of [[30, 12], [20, 5], [45, 30], [30, 2], [30, 21]]) {
    for (const [id, what] of [[flatLoop.id, 'drum loop'], [track.id, 'climax piece']] as const) {
      const body = { track_id: id, duration_seconds: duration, hit_point_seconds: hit, mode: 'edit' };
      const plan = await post(key, '/clip-plan', body);
      assert.equal(plan.status, 200, JSON.stringify(plan.json()));
      const p = plan.json();
      const clip = await post(key, '/download-track', body);
      assert.equal(clip.status, 200);
      assert.equal(clip.headers.get('x-hit-point-landing'), p.hit_point_landing);
      const landed = p.peak_in_clip_seconds !== null && Math.abs(p.peak_in_clip_seconds - hit) <= LANDING_SECONDS;
      assert.equal(p.hit_point_landing, landed ? 'sure' : 'miss', `${what} D=${duration} H=${hit}: peak at ${p.peak_in_clip_seconds}`);
      assert.equal(landed, p.hit_point_anchor === 'peak', `${what} D=${duration} H=${hit}: anchor ${p.hit_point_anchor}`);
      if (what === 'climax piece') assert.equal(p.hit_point_landing, 'sure', `${what} D=${duration} H=${hit}`);
    }
  }
});
