// Analysis accuracy on real recordings: the music of Debian's game-soundtrack packages
// (test/support/soundtracks.ts), against reference tempi where two independent estimators agree
// (aubio, soundstretch, bpm-tools) and against EBU R128 short-term loudness. Skips when the
// packages or the tools are absent (the suite must pass without them). The estimators' results are
// cached in the temp directory: the first run takes a few minutes, later ones about one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { soundtrackFiles, soundtrackReferences, toolsPresent } from '../support/soundtracks.ts';
import { acc1, acc2, CLIMAX_TOLERANCE_LU, measurePieces, type PieceResult } from '../support/tempo-accuracy.ts';

/** Issue 20's targets, on the pieces whose estimators agree. */
const ACC1_TARGET = 0.85;
const ACC2_TARGET = 0.95;
/**
 * Reached at 0.952 (60 of 63): 0.944 (51 of 54) on the first six packages, 0.937 (59 of 63) with
 * the three added as held-out material, then gardien-go's 2:3 reading mended (candidate periods
 * read between whole lags, so a 150 BPM bar is not lost). The misses: spunkyrace at 3:2 (an even
 * 8th-note stream, each rival within 2% of the other), hr-domina-mountain at 3:4 (accents group
 * its tatums by four where the estimators group by three) and drascula track25 (rubato, no
 * periodicity in our onsets at the estimators' tempo).
 */

const skip = !toolsPresent()
  ? 'needs ffmpeg, aubio (aubio-tools), soundstretch and bpm (bpm-tools)'
  : soundtrackFiles().length === 0
    ? 'no soundtrack packages installed (hyperrogue-music, pushover-data, planetblupi-music-ogg, drascula-music, tecnoballz-data, tomatoes-data, extremetuxracer-data, lincity-ng-data, frozen-bubble-data)'
    : false;

let measured: Promise<PieceResult[]> | undefined;
/** The pieces whose estimators agree, analysed once for all the tests below. */
function agreed(): Promise<PieceResult[]> {
  measured ??= soundtrackReferences().then((references) => measurePieces(references.filter((r) => r.tempoBpm !== undefined)));
  return measured;
}

const describe = (r: PieceResult) => `${path.basename(r.reference.file)}: ours ${r.tempoBpm}, reference ${r.reference.tempoBpm?.toFixed(1)}`;

test(`tempo within 4% of the agreed reference (Acc1) on at least ${ACC1_TARGET} of the pieces`, { skip }, async (t) => {
  const pieces = await agreed();
  const misses = pieces.filter((r) => !acc1(r.tempoBpm, r.reference.tempoBpm!));
  const share = 1 - misses.length / pieces.length;
  t.diagnostic(`Acc1 ${share.toFixed(3)} on ${pieces.length} pieces; misses: ${misses.map(describe).join('; ')}`);
  assert.ok(pieces.length >= 10, `only ${pieces.length} pieces with agreeing estimators`);
  assert.ok(share >= ACC1_TARGET, `Acc1 ${share.toFixed(3)}`);
});

test(`tempo within 4% of the reference or of its 1/3, 1/2, 2, 3 times (Acc2) on at least ${ACC2_TARGET} of the pieces`, { skip }, async (t) => {
  const pieces = await agreed();
  const misses = pieces.filter((r) => !acc2(r.tempoBpm, r.reference.tempoBpm!));
  const share = 1 - misses.length / pieces.length;
  t.diagnostic(`Acc2 ${share.toFixed(3)} on ${pieces.length} pieces; misses: ${misses.map(describe).join('; ')}`);
  assert.ok(share >= ACC2_TARGET, `Acc2 ${share.toFixed(3)}`);
});

/**
 * Share of pieces whose peak must pass. The peak of c2003af passed every piece but was reverted
 * (it moved segment clips' re-analysed peaks off H and onto risers on the demo songs); this one
 * passes 52 of 54 here. The issue measured 20 of 24 before this work.
 */
const CLIMAX_SHARE_TARGET = 0.9;

test(`the peak lies in a 3 s window within ${CLIMAX_TOLERANCE_LU} LU of the loudest 3 s of the piece`, { skip }, async (t) => {
  const pieces = await agreed();
  const misses = pieces.filter((r) => r.deficitLu > CLIMAX_TOLERANCE_LU);
  const share = 1 - misses.length / pieces.length;
  t.diagnostic(`${pieces.length - misses.length} of ${pieces.length}; misses: ${misses.map((r) => `${path.basename(r.reference.file)}: peak at ${r.peakSeconds.toFixed(1)} s, ${r.deficitLu.toFixed(1)} LU below`).join('; ')}`);
  assert.ok(share >= CLIMAX_SHARE_TARGET, `${pieces.length - misses.length} of ${pieces.length}`);
});
