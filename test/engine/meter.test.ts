// The meter (engine/analysis/meter.ts) and bars of that many beats (bars.ts): synthetic pieces in
// 3, 4, 5, 6 (two groups of three) and 7 (four and three) beats to the bar, a chord per bar and
// the downbeat struck hardest, through real MP3 bytes: the bars the analysis finds have the
// piece's number of beats, and their downbeat F-measure (+-70 ms) is at least 0.9; so too with
// every beat struck alike, the harmony alone telling the bars. Then the estimate on per-beat
// evidence whose answer is known, the hard cases among them: 6 against 3 (a 6 whose halves
// differ, against bars of 3 whose chords change every two bars) and 4 against its half and
// double.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { beatsPerBar, beatPeriodicity, DEFAULT_BEATS_PER_BAR, meterStrengths } from '../../engine/analysis/meter.ts';
import { downbeatPath } from '../../engine/analysis/bar-path.ts';
import { meterPiece } from '../support/meter-pieces.ts';
import { beatFMeasure, decodeMp3, mp3Of } from '../support/audio.ts';

const SECONDS = 40;
const TEMPI = [92, 132];
const METERS: [name: string, groups: number[]][] = [['3/4', [3]], ['4/4', [4]], ['5/4', [5]], ['6/4 (3 + 3)', [3, 3]], ['7/4 (4 + 3)', [4, 3]]];

/** The most common number of beats from one bar line to the next. */
function commonBarBeats(bars: Float32Array, beats: Float32Array): number {
  const beatIndex = (t: number) => beats.findIndex((b) => Math.abs(b - t) < 1e-6);
  const counts = new Map<number, number>();
  for (let b = 1; b < bars.length; b++) {
    const beatsInBar = beatIndex(bars[b]) - beatIndex(bars[b - 1]);
    counts.set(beatsInBar, (counts.get(beatsInBar) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0][0];
}

for (const [name, groups] of METERS) {
  const meter = groups.reduce((a, b) => a + b, 0);
  test(`${name}: bars of ${meter} beats, downbeat F-measure >= 0.9 at ${TEMPI.join(' and ')} BPM`, async (t) => {
    for (const bpm of TEMPI) {
      const piece = meterPiece(bpm, SECONDS, groups);
      const analysis = analysePcm(await decodeMp3(await mp3Of(piece.mono)));
      const barBeats = commonBarBeats(analysis.barTimesSeconds, analysis.beatTimesSeconds);
      const f = beatFMeasure(analysis.barTimesSeconds, piece.barSeconds);
      t.diagnostic(`${bpm} BPM: bars of ${barBeats} beats, downbeat F-measure ${f.toFixed(3)}`);
      assert.equal(barBeats, meter, `${name} at ${bpm} BPM: bars of ${barBeats} beats`);
      assert.ok(f >= 0.9, `${name} at ${bpm} BPM: downbeat F-measure ${f.toFixed(3)}`);
    }
  });
}

test('harmony alone (every beat struck alike): bars of the piece\'s meter, downbeat F-measure >= 0.9', async (t) => {
  const bpm = 108;
  for (const [name, groups] of METERS) {
    const meter = groups.reduce((a, b) => a + b, 0);
    const piece = meterPiece(bpm, SECONDS, groups, { accented: false });
    const analysis = analysePcm(await decodeMp3(await mp3Of(piece.mono)));
    const barBeats = commonBarBeats(analysis.barTimesSeconds, analysis.beatTimesSeconds);
    const f = beatFMeasure(analysis.barTimesSeconds, piece.barSeconds);
    t.diagnostic(`${name}: bars of ${barBeats} beats, downbeat F-measure ${f.toFixed(3)}`);
    assert.equal(barBeats, meter, `${name}: bars of ${barBeats} beats`);
    assert.ok(f >= 0.9, `${name}: downbeat F-measure ${f.toFixed(3)}`);
  }
});

/** Per-beat values of `beats` beats: `pattern` repeated (its length the bar), plus seeded noise of amplitude `noise`. */
function repeated(pattern: number[], beats: number, noise: number, seed = 3): Float64Array {
  let state = seed;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return Float64Array.from({ length: beats }, (_, i) => pattern[i % pattern.length] + noise * (random() - 0.5));
}

const BEATS = 120;

test('the meter estimate on per-beat evidence: each meter, 6 against 3, 4 against its half and double, short pieces', () => {
  const cases: [what: string, change: number[], accent: number[], meter: number][] = [
    ['3: a chord and an accent every 3 beats', [1, 0, 0], [1, 0, 0], 3],
    ['6 as 3 + 3: a chord every 6 beats, accents on 1 and (much less) 4', [1, 0, 0, 0, 0, 0], [1, 0, 0, 0.3, 0, 0], 6],
    ['3: a chord every 2 bars of 3, the second bar struck a little less', [1, 0, 0, 0, 0, 0], [1, 0, 0, 0.6, 0, 0], 3],
    ['3: a chord every 3 beats, the accent every 6 (one bar of two played harder)', [1, 0, 0], [1, 0, 0, 0.5, 0, 0], 3],
    ['4: chords every 4, kick on 1 and 3 (an accent with period 2)', [1, 0, 0, 0], [1, 0, 0.8, 0], 4],
    ['4: chords every 2 bars of 4, the downbeat accented', [1, 0, 0, 0, 0, 0, 0, 0], [1, 0, 0.3, 0, 1, 0, 0.3, 0], 4],
    ['5', [1, 0, 0, 0, 0], [1, 0, 0, 0, 0], 5],
    ['7 as 4 + 3', [1, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0.6, 0, 0], 7],
    ['no pattern: noise alone stays in 4', [0], [0], 4],
  ];
  for (const [what, change, accent, meter] of cases) {
    const h = repeated(change, BEATS, 0.4, 3);
    const a = repeated(accent, BEATS, 0.4, 5);
    const strengths = [...meterStrengths(beatPeriodicity(h, a))].map(([m, s]) => `${m}: ${s.toFixed(2)}`).join(', ');
    assert.equal(beatsPerBar(h, a), meter, `${what} (${strengths})`);
  }
  const short = repeated([1, 0, 0], 30, 0.1);
  assert.equal(beatsPerBar(short, short), DEFAULT_BEATS_PER_BAR, 'too short to tell: 4');
});

test('the downbeat path runs bars of the given length and follows a change of bar phase', () => {
  // Bars of 5 with a strong first beat; from beat 52 the bar starts two beats later.
  const gain = Float64Array.from({ length: 100 }, (_, i) => ((i < 50 ? i : i - 2) % 5 === 0 && i !== 50 ? 1 : -0.2));
  const downbeats = downbeatPath(gain, 5, 2);
  const expected = Array.from({ length: 100 }, (_, i) => i).filter((i) => gain[i] > 0);
  assert.deepEqual(downbeats, expected);
});
