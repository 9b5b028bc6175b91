// GET /tracks/{id}/analysis over real HTTP, on a rendered demo track ingested through the real
// pipeline: the fields and their consistency, loudness against the decoded source (and ffmpeg's
// ebur128 when it is on PATH), free of charge, an older engine's stored analysis redone, 404s.
import { test, before, after } from 'node:test';
import { skipUnless } from './support/requirements.ts';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { decodeMp3 } from './support/audio.ts';
import { ingestRenderedDemo } from './support/rendered-demo.ts';
import { removeTrack } from '../catalog/ingest.ts';
import { storePath } from '../catalog/store.ts';
import { hashApiKey } from '../billing/api-keys.ts';
import { integratedLoudnessLufs } from '../engine/analysis/loudness.ts';
import { deserialiseAnalysis, isCurrentAnalysis, serialiseAnalysis } from '../engine/analysis/serialise.ts';
import { ANALYSIS_VERSION } from '../engine/analysis/version.ts';

let server: TestServer;
let track: { id: string; audio_sha256: string; duration_seconds: number };

before(async () => {
  server = await startTestServer();
  const sql = server.service.database.sql;
  await ingestRenderedDemo({ sql, pool: server.service.engine, storage: server.service.storage, tracks: 2, fromAnalysis: [] });
  const rows = await sql`SELECT id, audio_sha256, duration_seconds FROM tracks ORDER BY id`;
  track = rows[0] as any;
});
after(() => server.stop());

const analysisPath = (id: string) => `${API}/tracks/${id}/analysis`;

async function balance(key: string): Promise<number> {
  const [row] = await server.service.database.sql`SELECT credits FROM api_keys WHERE key_hash = ${hashApiKey(key)}`;
  return row.credits;
}

function audioFile(sha256: string): string {
  return storePath(path.join(server.dataDir, 'catalog'), sha256, 'audio');
}

function assertAscending(values: number[], what: string) {
  for (let i = 1; i < values.length; i++) assert.ok(values[i] > values[i - 1], `${what} not ascending at ${i}: ${values[i - 1]}, ${values[i]}`);
}

test('the analysis of a track: every field present and consistent with the others', async (t) => {
  const key = await server.newKey('starter');
  const response = await call(server.base, 'GET', analysisPath(track.id), key);
  assert.equal(response.status, 200, JSON.stringify(response.body));
  assert.equal(response.headers.get('content-type'), 'application/json');
  const body = response.body;
  t.diagnostic(`${JSON.stringify(body).length} bytes for ${body.duration_seconds} s: ${body.beats.length} beats, ${body.bars.length} bars, ${body.sections.length} sections, ${body.waveform.peaks.length} peaks`);
  assert.deepEqual(Object.keys(body), ['track_id', 'duration_seconds', 'bpm', 'beats', 'bars', 'sections', 'peak_seconds', 'loudness_lufs', 'waveform']);
  assert.equal(body.track_id, track.id);
  const duration = body.duration_seconds;
  assert.ok(Math.abs(duration - track.duration_seconds) < 0.001, `${duration} vs ${track.duration_seconds}`);
  assert.ok(body.bpm >= 40 && body.bpm <= 250, `bpm ${body.bpm}`);

  // Seconds have at most 3 decimals.
  const millis = [...body.beats, ...body.bars, body.peak_seconds, ...body.sections.flatMap((s: any) => [s.start, s.end])];
  for (const value of millis) assert.equal(Math.round(value * 1000) / 1000, value, `${value} has more than 3 decimals`);

  assert.ok(body.beats.length > (duration * body.bpm) / 60 / 2, `${body.beats.length} beats in ${duration} s at ${body.bpm} BPM`);
  assertAscending(body.beats, 'beats');
  assert.ok(body.beats[0] >= 0 && body.beats[body.beats.length - 1] <= duration);
  const beats = new Set(body.beats);
  assert.ok(body.bars.length >= body.beats.length / 4 - 1);
  for (const bar of body.bars) assert.ok(beats.has(bar), `bar ${bar} is not a beat`);

  // Sections cover the track, end to start, and each after the first starts on a bar.
  assert.ok(body.sections.length >= 2, `${body.sections.length} sections`);
  assert.equal(body.sections[0].start, 0);
  assert.equal(body.sections[body.sections.length - 1].end, duration);
  const bars = new Set(body.bars);
  body.sections.forEach((section: any, i: number) => {
    assert.ok(section.end > section.start, `section ${i}: ${section.start}-${section.end}`);
    if (i > 0) {
      assert.equal(section.start, body.sections[i - 1].end);
      assert.ok(bars.has(section.start), `section ${i} starts at ${section.start}, not on a bar`);
    }
  });

  assert.ok(body.peak_seconds > 0 && body.peak_seconds < duration, `peak ${body.peak_seconds}`);

  // Loudness: the decoded source measured again here; the analysis stores it to 0.1 LU.
  const pcm = await decodeMp3(new Uint8Array(fs.readFileSync(audioFile(track.audio_sha256))));
  const measured = integratedLoudnessLufs(pcm.channels, pcm.sampleRate);
  assert.ok(typeof body.loudness_lufs === 'number' && body.loudness_lufs > -40 && body.loudness_lufs < 0, `loudness ${body.loudness_lufs}`);
  assert.ok(Math.abs(body.loudness_lufs - measured) <= 0.05 + 1e-9, `loudness ${body.loudness_lufs} vs ${measured} measured here`);

  const { points_per_second: perSecond, peaks } = body.waveform;
  assert.equal(perSecond, 20);
  assert.ok(Math.abs(peaks.length - duration * perSecond) <= 1, `${peaks.length} peaks for ${duration} s`);
  for (const peak of peaks) assert.ok(peak >= 0 && peak <= 1 && Math.round(peak * 1000) / 1000 === peak, `peak ${peak}`);
  assert.ok(Math.max(...peaks) > 0.1);
  // The loudest point holds the largest sample of the decoded source.
  let largest = 0;
  for (const channel of pcm.channels) for (const x of channel) largest = Math.max(largest, Math.abs(x));
  assert.ok(Math.abs(Math.max(...peaks) - Math.min(1, largest)) <= 0.0005, `${Math.max(...peaks)} vs ${largest}`);
});

test('free: the balance is unchanged, and /usage shows the requests at 0 credits', async () => {
  const key = await server.newKey('starter');
  const before = await balance(key);
  const first = await call(server.base, 'GET', analysisPath(track.id), key);
  const again = await call(server.base, 'GET', analysisPath(track.id), key);
  assert.equal(first.status, 200);
  assert.deepEqual(again.body, first.body); // the cached reply
  // The id percent-encoded, as some clients send path segments: the same track (not counted below).
  const encoded = await call(server.base, 'GET', analysisPath(`%${track.id.charCodeAt(0).toString(16)}${track.id.slice(1)}`), await server.newKey('starter'));
  assert.equal(encoded.status, 200, JSON.stringify(encoded.body));
  assert.deepEqual(encoded.body, first.body);
  assert.equal(again.headers.get('x-credits-remaining'), String(before));
  assert.ok(again.headers.get('x-ratelimit-remaining'));
  assert.equal(await balance(key), before);
  const usage = await call(server.base, 'GET', `${API}/usage`, key);
  const records = usage.body.usage.filter((r: any) => r.endpoint === '/tracks/{id}/analysis');
  assert.equal(records.length, 2);
  for (const record of records) {
    assert.equal(record.status_code, 200);
    assert.equal(record.credits_consumed, 0);
  }
});

test('an analysis stored by an older engine is redone from the audio at its first use, and stored again', async () => {
  const key = await server.newKey('starter');
  const sql = server.service.database.sql;
  // The other track: its analysis has not been read (and cached) yet.
  const [other] = await sql`SELECT id, analysis FROM tracks WHERE id <> ${track.id}`;
  const current = new Uint8Array(other.analysis);
  const older = serialiseAnalysis({ ...deserialiseAnalysis(current), version: ANALYSIS_VERSION - 1 });
  assert.equal(isCurrentAnalysis(older), false);
  await sql`UPDATE tracks SET analysis = ${Buffer.from(older)} WHERE id = ${other.id}`;
  const response = await call(server.base, 'GET', analysisPath(other.id), key);
  assert.equal(response.status, 200, JSON.stringify(response.body));
  assert.ok(response.body.beats.length > 0);
  const [redone] = await sql`SELECT analysis FROM tracks WHERE id = ${other.id}`;
  assert.ok(isCurrentAnalysis(new Uint8Array(redone.analysis)), 'the row holds a current analysis again');
  assert.deepEqual(new Uint8Array(redone.analysis), current, 'the same analysis as at ingest');
});

test('404 not_found for an unknown, malformed or removed id, in the error shape; 400 for a query parameter', async () => {
  const key = await server.newKey('starter');
  const sql = server.service.database.sql;
  const [other] = await sql`SELECT id FROM tracks WHERE id <> ${track.id}`;
  assert.equal((await call(server.base, 'GET', analysisPath(other.id), key)).status, 200);
  assert.equal(await removeTrack(sql, other.id), true);
  await new Promise((resolve) => setTimeout(resolve, 1100)); // track rows are cached for a second
  for (const id of ['trk_0123456789abcdef', 'nope', other.id]) {
    const response = await call(server.base, 'GET', analysisPath(id), key);
    assert.equal(response.status, 404, id);
    assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error', 'message', 'request_id']);
    assert.equal(response.body.code, 'not_found');
    assert.equal(response.body.error, 'Not Found');
    assert.equal(response.headers.get('x-request-id'), response.body.request_id);
  }
  const withQuery = await call(server.base, 'GET', `${analysisPath(track.id)}?points=100`, key);
  assert.equal(withQuery.status, 400);
  assert.equal(withQuery.body.code, 'invalid_parameters');
  assert.equal((await call(server.base, 'GET', analysisPath(track.id))).status, 401);
  assert.equal((await call(server.base, 'POST', analysisPath(track.id), key)).status, 405);
});

const ffmpegFound = spawnSync('ffmpeg', ['-version'], { stdio: 'ignore' }).status === 0;

test('loudness_lufs agrees with ffmpeg ebur128 on the stored MP3 within 0.1 LU', { skip: skipUnless(ffmpegFound, 'ffmpeg (apt-get install ffmpeg)') }, async (t) => {
  const key = await server.newKey('starter');
  const response = await call(server.base, 'GET', analysisPath(track.id), key);
  const run = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-i', audioFile(track.audio_sha256), '-af', 'ebur128', '-f', 'null', '-'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const ffmpeg = Number(/Integrated loudness:\s+I:\s+(-?[\d.]+) LUFS/.exec(run.stderr)![1]);
  t.diagnostic(`loudness_lufs ${response.body.loudness_lufs}, ffmpeg ${ffmpeg}`);
  // Both are rounded to 0.1: 0.1 apart at most when the measurements agree within 0.05.
  assert.ok(Math.abs(response.body.loudness_lufs - ffmpeg) <= 0.1 + 1e-9, `${response.body.loudness_lufs} vs ffmpeg ${ffmpeg}`);
});
