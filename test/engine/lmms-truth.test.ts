// The true beats of the LMMS songs (test/support/lmms-songs.ts), which `npm run bench -- edits`
// judges on, read from the project's header: a wrong reading would judge every piece against the
// wrong grid. Projects written here, in the format LMMS saves (plain and Qt-compressed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { audibleSpan, lmmsBeats, lmmsHeader, projectXml } from '../support/lmms-songs.ts';

const project = (head: string) => `<?xml version="1.0"?>\n<!DOCTYPE lmms-project>\n<lmms-project version="1.0" type="song">\n  ${head}\n  <song/>\n</lmms-project>\n`;

test('a project header gives its tempo in quarter notes and its bar in quarter-note beats', () => {
  assert.deepEqual(lmmsHeader(project('<head bpm="140" timesig_numerator="4" timesig_denominator="4" mastervol="100"/>')), { bpm: 140, beatsPerBar: 4 });
  assert.deepEqual(lmmsHeader(project('<head timesig_denominator="4" timesig_numerator="3" bpm="96.5">\n<mastervol value="99"/>\n</head>')), { bpm: 96.5, beatsPerBar: 3 });
  assert.deepEqual(lmmsHeader(project('<head timesig_numerator="1" timesig_denominator="1" bpm="120"/>')), { bpm: 120, beatsPerBar: 4 });
  assert.equal(lmmsHeader(project('<head timesig_numerator="7" timesig_denominator="8" bpm="120"/>')), undefined, '7/8 is not a whole number of quarter notes');
  assert.equal(lmmsHeader(project('<head timesig_numerator="4" timesig_denominator="4"/>')), undefined, 'no tempo');
});

test('a compressed project (.mmpz: a 4-byte length, then zlib) reads as the plain one', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-lmms-'));
  try {
    const xml = project('<head bpm="128" timesig_numerator="4" timesig_denominator="4"/>');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(Buffer.byteLength(xml));
    fs.writeFileSync(path.join(dir, 'song.mmpz'), Buffer.concat([length, zlib.deflateSync(xml)]));
    fs.writeFileSync(path.join(dir, 'song.mmp'), xml);
    assert.equal(projectXml(path.join(dir, 'song.mmpz')), xml);
    assert.equal(projectXml(path.join(dir, 'song.mmp')), xml);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('beats fall every 60 / bpm s from 0, bars every bar length of them, counted only where the render is audible', () => {
  const sampleRate = 1000;
  const silent = (seconds: number) => new Float32Array(seconds * sampleRate);
  const channel = Float32Array.from({ length: 10 * sampleRate }, (_, i) => (i >= 2 * sampleRate && i < 8 * sampleRate ? Math.sin(i) : 0));
  const span = audibleSpan({ sampleRate, channels: [channel, silent(10)] });
  assert.deepEqual(span, [2, 8]);
  const { beatSeconds, barSeconds } = lmmsBeats({ bpm: 120, beatsPerBar: 3 }, span);
  assert.deepEqual(beatSeconds, [2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8]);
  assert.deepEqual(barSeconds, [3, 4.5, 6, 7.5]);
});
