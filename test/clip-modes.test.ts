// Edit and loop modes and the clip plan over real HTTP: validation, X-Clip-Plan on every clip,
// POST /clip-plan free and identical to what the download does, the plan matching the audio.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';
import { API } from './support/http.ts';
import { climaxPiece, drumPattern } from './support/synth.ts';
import { analysePcm } from '../engine/analysis/analyse.ts';
import { LANDING_SECONDS } from '../engine/plan/peak-landing.ts';
import { decodeMp3 } from './support/audio.ts';
import { ingestSignals } from './support/ingest.ts';
import { storePath } from '../catalog/store.ts';
import { hashApiKey } from '../billing/api-keys.ts';
import { planMatchesAudio } from './support/plan-audio.ts';
import { ONSET_PHASE_SAMPLES } from '../engine/analysis/frames.ts';

/** Where an edit's plan says its peak plays, against H: under an onset phase, plus the 3-decimal rounding. */
const PEAK_PLACEMENT_SECONDS = ONSET_PHASE_SAMPLES / 44100 + 0.0005;

let server: TestServer;
let track: { id: string; audio_sha256: string };
/** A drum loop at one level throughout: no climax any plan can put at H. */
let flatLoop: { id: string };

before(async () => {
  server = await startTestServer();
  await ingestSignals({
    sql: server.service.database.sql,
    pool: server.service.engine,
    storeDir: path.join(server.dataDir, 'catalog'),
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
    assert.ok(['track_end', 'bar_line', 'cut'].includes(p.ending));
    const edit = body.mode === 'edit' && body.hit_point_seconds !== undefined;
    assert.ok(edit ? ['sure', 'thin'].includes(p.hit_point_landing) : p.hit_point_landing === null, `hit_point_landing ${p.hit_point_landing}`);
    const clip = await post(key, '/download-track', body);
    assert.equal(clip.status, 200);
    assert.equal(await credits(key), before - 1);
    assert.equal(clip.headers.get('x-hit-point-landing'), p.hit_point_landing, 'X-Hit-Point-Landing is the plan\'s hit_point_landing');
    const header = JSON.parse(clip.headers.get('x-clip-plan')!);
    assert.deepEqual(header, p.parts.map((part: any) => [part.clip_start, part.source_start, part.length]), 'the download follows the plan /clip-plan showed');
    const pcm = await decodeMp3(clip.bytes);
    assert.equal(pcm.channels[0].length, Math.round(body.duration_seconds * 44100), `${JSON.stringify(body)}: exact length`);
    const total = header.reduce((sum: number, [, , length]: number[]) => sum + length, 0);
    assert.ok(Math.abs(total - body.duration_seconds) < 0.002, 'the parts add up to D');
    // The part playing the peak moves by less than an onset phase to the analysis's frames (frame-align.ts onOnsetPhase).
    if (body.hit_point_seconds !== undefined && body.mode === 'edit') assert.ok(Math.abs(p.peak_in_clip_seconds - body.hit_point_seconds) <= PEAK_PLACEMENT_SECONDS, `an edit puts the peak at H: ${p.peak_in_clip_seconds}`);
    planMatchesAudio(header, pcm, source);
  }
});

test('hit_point_landing tells the truth: on a drum loop at one level the clip hears its peak elsewhere ("miss"), where it says it lands it does', async () => {
  const key = await server.newKey('pro');
  const verdicts: string[] = [];
  for (const [duration, hit] of [[30, 12], [20, 5], [45, 30], [30, 2], [30, 21]]) {
    for (const [id, what] of [[flatLoop.id, 'drum loop'], [track.id, 'climax piece']] as const) {
      const body = { track_id: id, duration_seconds: duration, hit_point_seconds: hit, mode: 'edit' };
      const plan = await post(key, '/clip-plan', body);
      assert.equal(plan.status, 200, JSON.stringify(plan.json()));
      const landing = plan.json().hit_point_landing;
      const clip = await post(key, '/download-track', body);
      assert.equal(clip.status, 200);
      assert.equal(clip.headers.get('x-hit-point-landing'), landing);
      const heard = analysePcm(await decodeMp3(clip.bytes)).peakSeconds;
      const landed = Math.abs(heard - hit) <= LANDING_SECONDS;
      assert.equal(landed, landing !== 'miss', `${what} D=${duration} H=${hit}: hit_point_landing ${landing}, the clip hears its peak at ${heard.toFixed(3)} s`);
      verdicts.push(`${what} ${landing}`);
    }
  }
  // The loop has no climax to place: most of its edits say so (a hit point in the first seconds can still land on the first downbeat).
  assert.ok(verdicts.filter((v) => v === 'drum loop miss').length >= 3, verdicts.join(', '));
  assert.ok(verdicts.filter((v) => v.startsWith('climax piece')).every((v) => v === 'climax piece sure' || v === 'climax piece thin'), verdicts.join(', '));
});
