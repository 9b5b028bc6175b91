// The dominant energy peak on rendered pieces with a designed climax; key and sections too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { climaxPiece, drumPattern } from '../support/synth.ts';
import { decodeMp3, mp3Of } from '../support/audio.ts';

const PIECES = [
  { bpm: 100, seconds: 150, climax: 60 },
  { bpm: 128, seconds: 180, climax: 95.625 },
  { bpm: 90, seconds: 200, climax: 120 },
  { bpm: 140, seconds: 120, climax: 40.714 },
  { bpm: 75, seconds: 180, climax: 128 },
];

test('the peak is found within 0.5 s of the designed climax', async () => {
  for (const piece of PIECES) {
    const analysis = analysePcm(await decodeMp3(await mp3Of(climaxPiece(piece.bpm, piece.seconds, piece.climax))));
    assert.ok(Math.abs(analysis.peakSeconds - piece.climax) <= 0.5, `${JSON.stringify(piece)}: peak at ${analysis.peakSeconds}`);
    // The peak is snapped to a beat.
    assert.ok(analysis.beatTimesSeconds.some((b) => Math.abs(b - analysis.peakSeconds) < 1e-3));
    // A section starts at the climax, on a bar line. These pieces put the same kick on beats 1 and 3
    // and never change chord, so the bar phase is ambiguous by half a bar: allow two beats.
    const beat = 60 / piece.bpm;
    assert.ok(analysis.sectionTimesSeconds.some((s) => Math.abs(s - piece.climax) <= 2 * beat + 0.05), `sections ${Array.from(analysis.sectionTimesSeconds)}`);
  }
});

test('key of the A major pads is A major; energy levels order quiet < loud', async () => {
  const analysis = analysePcm(await decodeMp3(await mp3Of(climaxPiece(110, 90, 40))));
  assert.equal(analysis.key, 'A major');
  const quiet = drumPattern(120, 30, 0.5, 7, 0.08);
  const loud = drumPattern(120, 30, 0.5, 7, 1);
  const levels = ['low', 'medium', 'high'];
  const quietLevel = levels.indexOf(analysePcm(await decodeMp3(await mp3Of(quiet))).energyLevel);
  const loudLevel = levels.indexOf(analysePcm(await decodeMp3(await mp3Of(loud))).energyLevel);
  assert.ok(quietLevel < loudLevel, `quiet ${levels[quietLevel]}, loud ${levels[loudLevel]}`);
});
