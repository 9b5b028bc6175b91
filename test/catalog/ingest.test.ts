// Ingestion against a real database and the real engine pool: good files, bad files each rejected
// with its reason, idempotent re-runs, CSV sidecars, removal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startCatalogFixture, type CatalogFixture } from '../support/catalog-fixture.ts';
import type { Sql } from '../../db/connect.ts';
import type { EnginePool } from '../../engine/pool.ts';
import { ingestFolder, listTracks, removeTrack } from '../../catalog/ingest.ts';
import { storePath } from '../../catalog/store.ts';
import { readMetadata } from '../../catalog/metadata.ts';
import { indexFrames } from '../../engine/mp3/frame-index.ts';
import { climaxPiece, drumPattern } from '../support/synth.ts';
import { mp3Of } from '../support/audio.ts';
import { fileStorage } from '../../catalog/storage/file-storage.ts';
import { flacBytes, wavBytes } from '../support/master-files.ts';
import { execFileSync } from 'node:child_process';

let fixture: CatalogFixture;
let sql: Sql;
let pool: EnginePool;
let root: string;

before(async () => {
  fixture = await startCatalogFixture('mla-ingest-');
  ({ sql, pool, root } = fixture);
});
after(() => fixture.stop());

function folder(name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

test('a good folder is ingested with analysis-filled fields and previews; a re-run changes nothing', async () => {
  const dir = folder('good');
  const store = path.join(root, 'store');
  fs.writeFileSync(path.join(dir, 'one.mp3'), await mp3Of(climaxPiece(120, 60, 30)));
  fs.writeFileSync(path.join(dir, 'two.mp3'), await mp3Of(drumPattern(96, 25)));
  fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify([
    { file: 'one.mp3', title: 'Première Étoile', artist: 'Test Band', genre: 'cinematic', moods: ['epic', 'Dramatic'], instruments: ['drums', 'Strings'], has_vocals: false },
    { file: 'two.mp3', title: 'Two', artist: 'Test Band', bpm: 96, key: 'A minor', energy_level: 'medium', description: 'steady drums' },
  ]));
  const report = await ingestFolder({ sql, pool, dir, storage: fileStorage(store) });
  assert.deepEqual(report.rejected, []);
  assert.equal(report.ingested.length, 2);
  const rows = await sql`SELECT * FROM tracks ORDER BY source_file`;
  const one = rows.find((r) => r.source_file === 'one.mp3')!;
  assert.match(one.id, /^trk_[0-9a-f]{16}$/);
  assert.equal(one.genre, 'Cinematic');
  assert.deepEqual(one.moods, ['Epic', 'Dramatic']);
  assert.deepEqual(one.instruments, ['Drums', 'Strings']);
  assert.ok(Math.abs(one.bpm - 120) < 2.5, `bpm from analysis: ${one.bpm}`);
  assert.ok(Math.abs(one.peak_seconds - 30) <= 0.5, `peak ${one.peak_seconds}`);
  assert.ok(Math.abs(one.duration_seconds - 60) < 0.01);
  assert.ok(['low', 'medium', 'high'].includes(one.energy_level));
  const two = rows.find((r) => r.source_file === 'two.mp3')!;
  assert.equal(two.bpm, 96);
  assert.equal(two.key, 'A minor');
  // Stored audio is the file itself; the preview is a 30 s clip (or the whole track when shorter).
  assert.ok(fs.readFileSync(storePath(store, one.audio_sha256, 'audio')).equals(fs.readFileSync(path.join(dir, 'one.mp3'))));
  const preview = fs.readFileSync(storePath(store, one.preview_sha256, 'preview'));
  assert.equal(indexFrames(preview).totalSamples, 30 * 44100);
  assert.equal(indexFrames(fs.readFileSync(storePath(store, two.preview_sha256, 'preview'))).totalSamples, 25 * 44100);

  const again = await ingestFolder({ sql, pool, dir, storage: fileStorage(store) });
  assert.deepEqual(again.ingested, []);
  assert.equal(again.unchanged.length, 2);
  const rowsAfter = await sql`SELECT id, ingested_at FROM tracks ORDER BY id`;
  assert.deepEqual(rowsAfter, await sql`SELECT id, ingested_at FROM tracks ORDER BY id`);
  assert.equal(rowsAfter.length, 2);

  assert.equal(await removeTrack(sql, one.id), true);
  assert.equal(await removeTrack(sql, one.id), false);
  const listing = await listTracks(sql);
  assert.equal(listing.find((t) => t.id === one.id)!.removed, true);
});

test('bad files are each rejected with their reason; the good ones are ingested', async () => {
  const dir = folder('mixed');
  const store = path.join(root, 'store-mixed');
  fs.writeFileSync(path.join(dir, 'good.mp3'), await mp3Of(drumPattern(128, 15)));
  fs.writeFileSync(path.join(dir, 'text.mp3'), 'this is not audio\n'.repeat(500));
  const noise = new Uint8Array(80_000);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919 + (i >> 3)) & 0xff;
  fs.writeFileSync(path.join(dir, 'noise.mp3'), noise);
  fs.writeFileSync(path.join(dir, 'short.mp3'), await mp3Of(drumPattern(128, 5)));
  fs.writeFileSync(path.join(dir, 'unlisted.mp3'), await mp3Of(drumPattern(100, 12)));
  fs.writeFileSync(path.join(dir, 'badgenre.mp3'), await mp3Of(drumPattern(110, 12)));
  fs.writeFileSync(
    path.join(dir, 'metadata.csv'),
    [
      'file,title,artist,genre,moods,has_vocals,bpm',
      'good.mp3,"Good, Really",Someone,House,Energetic;groovy,false,128',
      'text.mp3,Text,Someone,,,,',
      'noise.mp3,Noise,Someone,,,,',
      'short.mp3,Short,Someone,,,,',
      'badgenre.mp3,Bad Genre,Someone,Vaporwave,,,',
      'missing.mp3,Missing,Someone,,,,',
    ].join('\n'),
  );
  const report = await ingestFolder({ sql, pool, dir, storage: fileStorage(store) });
  assert.deepEqual(report.ingested.map((t) => t.file), ['good.mp3']);
  const reasons = Object.fromEntries(report.rejected.map((r) => [r.file, r.reason]));
  assert.match(reasons['text.mp3'], /not a usable MP3/);
  assert.match(reasons['noise.mp3'], /not a usable MP3/);
  assert.match(reasons['short.mp3'], /too short: 5\.0 s/);
  assert.match(reasons['unlisted.mp3'], /no metadata entry/);
  assert.match(reasons['badgenre.mp3'], /genre "Vaporwave" is not a parent genre/);
  assert.match(reasons['missing.mp3'], /not in the folder/);
  const [good] = await sql`SELECT * FROM tracks WHERE source_file = 'good.mp3'`;
  assert.equal(good.title, 'Good, Really');
  assert.deepEqual(good.moods, ['Energetic', 'Groovy']);
  assert.equal(good.has_vocals, false);
  // Rejected files leave nothing in the store.
  const stored = fs.readdirSync(path.join(store, 'audio'), { recursive: true }).filter((f) => String(f).endsWith('.mp3'));
  assert.equal(stored.length, 1);
});

test('a CSV sidecar may quote a newline and an escaped quote inside a field; its rows stay whole', async () => {
  const dir = folder('quoted-csv');
  const store = path.join(root, 'store-quoted');
  fs.writeFileSync(path.join(dir, 'first.mp3'), await mp3Of(drumPattern(120, 12)));
  fs.writeFileSync(path.join(dir, 'second.mp3'), await mp3Of(drumPattern(90, 12)));
  fs.writeFileSync(
    path.join(dir, 'metadata.csv'),
    [
      'file,title,artist,description,moods',
      'first.mp3,"The ""Big"" Night",Someone,"Verse one,\nthen the chorus\r\nand a ""drop""",Happy',
      'second.mp3,Second,Someone,"plain, with a comma",Calm;Dreamy',
      '', // blank lines between rows are skipped
      'third.mp3,Third,Someone,"a quote "" and\na newline",Bouncy-Nonexistent;Sad',
    ].join('\n'),
  );
  const { entries, rejected } = readMetadata(dir);
  assert.deepEqual([...rejected], []);
  assert.deepEqual([...entries.keys()], ['first.mp3', 'second.mp3', 'third.mp3']);
  assert.equal(entries.get('first.mp3')!.title, 'The "Big" Night');
  assert.equal(entries.get('first.mp3')!.description, 'Verse one,\nthen the chorus\r\nand a "drop"');
  assert.deepEqual(entries.get('first.mp3')!.moods, ['Happy']);
  assert.equal(entries.get('third.mp3')!.description, 'a quote " and\na newline');
  assert.deepEqual(entries.get('third.mp3')!.moods, ['Bouncy-Nonexistent', 'Sad']);

  const report = await ingestFolder({ sql, pool, dir, storage: fileStorage(store) });
  assert.deepEqual(report.ingested.map((t) => t.file).sort(), ['first.mp3', 'second.mp3']);
  assert.deepEqual(report.rejected.map((r) => r.file), ['third.mp3']);
  assert.match(report.rejected[0].reason, /not in the folder/);
  const rows = await sql`SELECT source_file, title, description, moods FROM tracks WHERE source_file IN ('first.mp3', 'second.mp3') ORDER BY source_file`;
  assert.equal(rows[0].title, 'The "Big" Night');
  assert.equal(rows[0].description, 'Verse one,\nthen the chorus\r\nand a "drop"');
  assert.deepEqual(rows[0].moods, ['Happy']);
  assert.equal(rows[1].description, 'plain, with a comma');
  assert.deepEqual(rows[1].moods, ['Calm', 'Dreamy']);
});

test('a CSV sidecar with an unclosed quote is refused with the file and the line', () => {
  const dir = folder('unclosed-csv');
  fs.writeFileSync(path.join(dir, 'metadata.csv'), 'file,title,artist\na.mp3,"Never closed,Someone\n');
  assert.throws(() => readMetadata(dir), (err: Error) => err.message.includes('metadata.csv') && /quote/i.test(err.message) && /line 2/.test(err.message));
});

test('CSV validation messages are those of JSON sidecars: a bad value names its field', () => {
  const dir = folder('invalid-csv');
  fs.writeFileSync(path.join(dir, 'metadata.csv'), 'file,title,artist,energy_level,bpm,key\na.mp3,A,X,loud,,\nb.mp3,B,X,,900,\nc.mp3,,X,,,\nd.mp3,D,X,,,"H major"\n');
  const { rejected } = readMetadata(dir);
  assert.equal(rejected.get('a.mp3'), 'energy_level "loud" must be low, medium or high');
  assert.equal(rejected.get('b.mp3'), '"bpm" must be a number from 20 to 300');
  assert.equal(rejected.get('c.mp3'), 'metadata lacks "title"');
  assert.equal(rejected.get('d.mp3'), 'key "H major" must look like "A minor" or "C# major"');
});

test('entries no master can be are each rejected with their reason, and the rest of the folder goes through', async () => {
  const dir = folder('odd-entries');
  const store = path.join(root, 'store-odd');
  const at = (file: string) => path.join(dir, file);
  const beat = drumPattern(121, 12, 0.5, 31); // a pattern no other test ingests
  fs.writeFileSync(at('good.mp3'), await mp3Of(beat));
  // A FLAC named as a WAV is read by its content, and a copy of it is the same track.
  const flac = flacBytes([beat], 44100, 16);
  fs.writeFileSync(at('flac-named.wav'), flac);
  fs.writeFileSync(at('z-copy.flac'), flac);
  fs.mkdirSync(at('folder.mp3'));
  execFileSync('mkfifo', [at('pipe.wav')]); // read, it would block the run for ever
  fs.symlinkSync('loop.mp3', at('loop.mp3'));
  fs.symlinkSync('/nonexistent/x.wav', at('dangling.wav'));
  fs.writeFileSync(Buffer.concat([Buffer.from(`${dir}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.mp3')]), await mp3Of(drumPattern(100, 12)));
  fs.writeFileSync(at('tune.ogg'), 'OggS');
  const nan = Float32Array.from(beat);
  nan[44100 * 6] = Number.NaN;
  fs.writeFileSync(at('nan.wav'), wavBytes([nan], 44100, 'float32'));
  fs.writeFileSync(at('silent.wav'), wavBytes([new Float32Array(44100 * 12)], 44100, 'pcm16'));
  const listed = ['good.mp3', 'flac-named.wav', 'z-copy.flac', 'folder.mp3', 'pipe.wav', 'loop.mp3', 'dangling.wav', 'tune.ogg', 'nan.wav', 'silent.wav'];
  const entries: Record<string, string>[] = listed.map((file) => ({ file, title: file, artist: 'Odd' }));
  entries.push({ file: 'nul.mp3', title: 'Null\u0000byte', artist: 'Odd' });
  fs.writeFileSync(at('metadata.json'), JSON.stringify(entries));

  const report = await ingestFolder({ sql, pool, dir, storage: fileStorage(store) });
  assert.deepEqual(report.ingested.map((t) => t.file), ['flac-named.wav', 'good.mp3']);
  assert.deepEqual(report.unchanged.map((t) => t.file), ['z-copy.flac']);
  assert.equal(report.unchanged[0].id, report.ingested[0].id);
  const reasons = Object.fromEntries(report.rejected.map((r) => [r.file, r.reason]));
  assert.match(reasons['folder.mp3'], /not a regular file/);
  assert.match(reasons['pipe.wav'], /not a regular file/);
  assert.match(reasons['loop.mp3'], /cannot be read: ELOOP/);
  assert.match(reasons['dangling.wav'], /cannot be read: ENOENT/);
  assert.match(reasons['bad-\ufffd\ufffd.mp3'], /its name is not valid UTF-8/);
  assert.match(reasons['tune.ogg'], /not a master format: MP3, WAV or FLAC/);
  assert.match(reasons['nan.wav'], /not a number \(NaN or infinite\) at 6\.000 s/);
  assert.match(reasons['silent.wav'], /^silent/);
  assert.match(reasons['nul.mp3'], /metadata: "title" holds a NUL character/);
});

test('a job that fails on the store\'s disk (not on its master) stays pending with its original kept, and is made on the next run', async () => {
  const dir = folder('disk-fails');
  const store = path.join(root, 'store-disk-fails');
  fs.writeFileSync(path.join(dir, 'fine.mp3'), await mp3Of(drumPattern(104, 12)));
  fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify([{ file: 'fine.mp3', title: 'Fine', artist: 'Disk' }]));
  fs.mkdirSync(store, { recursive: true });
  fs.writeFileSync(path.join(store, 'preview'), 'a file where the previews\' directory should be');
  await assert.rejects(ingestFolder({ sql, pool, dir, storage: fileStorage(store) }), /ENOTDIR/);
  const [job] = await sql`SELECT sha256, state FROM ingest_jobs WHERE file = 'fine.mp3'`;
  assert.equal(job.state, 'pending');
  assert.ok(fs.readdirSync(path.join(store, 'audio'), { recursive: true }).some((f) => String(f).includes(job.sha256)), 'the original is kept');
  fs.rmSync(path.join(store, 'preview'));
  const report = await ingestFolder({ sql, pool, dir, storage: fileStorage(store) });
  assert.deepEqual(report.rejected, []);
  assert.equal(report.ingested.length, 1);
});
