// Whether a track's clips are heard at the track's own tempo (clipsKeepTrackTempo): where they are
// not, an edit's search does not trust a miss on the source's beats and beat-tracks each plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { clipsKeepTrackTempo } from '../../engine/plan/peak-landing.ts';
import { climaxPiece } from '../support/synth.ts';
import { decodeMp3, mp3Of } from '../support/audio.ts';

test('a piece whose 30 s around the peak read its own tempo keeps it; one read at half or 3:2 of it does not', async () => {
  const analysis = analysePcm(await decodeMp3(await mp3Of(climaxPiece(110, 90, 40))));
  assert.ok(clipsKeepTrackTempo(analysis), `read at ${analysis.tempoBpm} BPM`);
  // The same clips against a track read at another metrical level (a fresh envelope: the verdict is kept per envelope).
  for (const factor of [0.5, 2 / 3]) {
    const elsewhere = { ...analysis, tempoBpm: analysis.tempoBpm * factor, onset: analysis.onset.slice() };
    assert.equal(clipsKeepTrackTempo(elsewhere), false, `track read at ${elsewhere.tempoBpm.toFixed(1)} BPM`);
  }
});
