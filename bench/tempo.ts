// Analysis accuracy on real recordings (Debian's game soundtracks, test/support/soundtracks.ts):
// per piece the three estimators, the agreed reference, our tempo, Acc1/Acc2, and how far the peak's
// 3 s window lies below the loudest 3 s (EBU R128 short-term loudness, K-weighted). Also the
// analysis time per minute of audio, the figure that catalog ingest pays. Then the tempo, beats and
// bars on the tuning set (test/support/accompaniments.ts), where the analysis's constants are chosen.
import path from 'node:path';
import { benchMusic, soundtrackReferences, toolsPresent } from '../test/support/soundtracks.ts';
import { acc1, acc2, CLIMAX_TOLERANCE_LU, measurePieces, type PieceResult } from '../test/support/tempo-accuracy.ts';
import { type HarmonicRhythm, accompaniments } from '../test/support/accompaniments.ts';
import { analysePcm } from '../engine/analysis/analyse.ts';
import { firstAtOrAfter } from '../engine/analysis/beats.ts';
import { planGrid, type PlanGrid } from '../engine/plan/grid.ts';
import { beatFMeasure, TRACKED_BEAT_F } from '../test/support/audio.ts';
import { machineLine } from './machine.ts';

/** The tuning set's draw: as many songs, and the seed, as the tempo's constants were chosen on. */
const TUNING_SONGS = 800;
const TUNING_SEED = 20261205;

const fixed = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '-');

export async function benchTempo(): Promise<string> {
  return `${await soundtrackTempo()}\n\n${tuningSetTempo()}`;
}

interface MeterTally {
  songs: number;
  tempoRight: number;
  beatF: number;
  tracked: number;
  downbeatF: number;
  barsRight: number;
}

const emptyTally = (): MeterTally => ({ songs: 0, tempoRight: 0, beatF: 0, tracked: 0, downbeatF: 0, barsRight: 0 });

/**
 * The tuning set's tempo (within 4% of the written beat), beat F, and on the songs whose beats are
 * tracked right, downbeat F and how many get the written beats per bar: in all, by beats per bar
 * and by how often the chords change.
 */
function tuningSetTempo(): string {
  const byMeter = new Map<number, MeterTally>();
  const byRhythm = new Map<HarmonicRhythm, MeterTally>();
  for (const song of accompaniments(TUNING_SONGS, TUNING_SEED)) {
    const analysis = analysePcm(song.pcm);
    const grid = planGrid(analysis);
    const beatF = beatFMeasure(grid.beats, song.beatSeconds);
    const tracked = beatF >= TRACKED_BEAT_F;
    const tally: MeterTally = {
      songs: 1,
      tempoRight: acc1(analysis.tempoBpm, song.bpm) ? 1 : 0,
      beatF,
      tracked: tracked ? 1 : 0,
      downbeatF: tracked ? beatFMeasure(grid.lines.subarray(0, grid.bars), song.barSeconds) : 0,
      barsRight: tracked && medianBeatsPerBar(grid) === song.groove.beatsPerBar ? 1 : 0,
    };
    byMeter.set(song.groove.beatsPerBar, added(byMeter.get(song.groove.beatsPerBar) ?? emptyTally(), tally));
    byRhythm.set(song.rhythm, added(byRhythm.get(song.rhythm) ?? emptyTally(), tally));
  }
  if (byMeter.size === 0) return 'tuning set: skipped, needs mma, fluidsynth and fluid-soundfont-gm';
  const all = [...byMeter.values()].reduce(added, emptyTally());
  const line = (label: string, m: MeterTally) =>
    `  ${label.padEnd(18)} tempo ${m.tempoRight}/${m.songs}, beat F ${(m.beatF / m.songs).toFixed(3)}; tracked right ${m.tracked}: ` +
    `downbeat F ${m.tracked ? (m.downbeatF / m.tracked).toFixed(3) : '-'}, beats per bar right ${m.barsRight}/${m.tracked}`;
  return [
    `tuning set (MMA accompaniments, seed ${TUNING_SEED}): tempo within 4% of the written beat; beat F (+-70 ms); on the songs whose beat F >= ${TRACKED_BEAT_F}, downbeat F and the beats per bar`,
    line('all', all),
    ...[...byMeter.entries()].sort(([a], [b]) => a - b).map(([beats, m]) => line(`${beats} beats a bar`, m)),
    ...[...byRhythm.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([rhythm, m]) => line(`chords: ${rhythm}`, m)),
  ].join('\n');
}

/** Two tallies summed field by field. */
function added(a: MeterTally, b: MeterTally): MeterTally {
  const sum = emptyTally();
  for (const key of Object.keys(sum) as (keyof MeterTally)[]) sum[key] = a[key] + b[key];
  return sum;
}

/** The median number of the grid's beats from one bar line to the next. */
function medianBeatsPerBar(grid: PlanGrid): number {
  const counts: number[] = [];
  for (let bar = 0; bar + 1 < grid.bars; bar++) counts.push(firstAtOrAfter(grid.beats, grid.lines[bar + 1] - 1e-3) - firstAtOrAfter(grid.beats, grid.lines[bar] - 1e-3));
  counts.sort((a, b) => a - b);
  return counts[counts.length >> 1] ?? 0;
}

async function soundtrackTempo(): Promise<string> {
  if (!toolsPresent()) return 'soundtracks: skipped, needs ffmpeg, aubio (aubio-tools), soundstretch and bpm (bpm-tools)';
  const music = benchMusic();
  const results = measurePieces(await soundtrackReferences(music.files));
  if (results.length === 0) return `soundtracks: skipped, no ${music.name} soundtrack packages installed (design.md lists them)`;
  const lines = [machineLine(), `music: ${music.name} (BENCH_MUSIC)`, '', 'piece                                   s  aubio  sstr   bpm |   ref   ours acc1 acc2 | peak s  LU below (3 s from peak)'];
  for (const r of results) {
    const { estimates, tempoBpm: ref } = r.reference;
    const name = `${path.basename(path.dirname(r.reference.file))}/${path.basename(r.reference.file)}`.slice(-36).padEnd(36);
    const a1 = ref === undefined ? '   ' : acc1(r.tempoBpm, ref) ? 'yes' : 'no ';
    const a2 = ref === undefined ? '   ' : acc2(r.tempoBpm, ref) ? 'yes' : 'no ';
    lines.push(
      `${name} ${fixed(r.reference.seconds, 0).padStart(4)} ${fixed(estimates.aubio).padStart(6)} ${fixed(estimates.soundstretch).padStart(5)} ${fixed(estimates.bpmTools).padStart(5)} | ` +
        `${(ref === undefined ? '-' : fixed(ref)).padStart(5)} ${fixed(r.tempoBpm).padStart(6)} ${a1}  ${a2}  | ${fixed(r.peakSeconds).padStart(6)} ${fixed(r.deficitLu).padStart(5)} (${fixed(r.openingDeficitLu)})`,
    );
  }
  const agreed = results.filter((r) => r.reference.tempoBpm !== undefined);
  const count = (ok: (r: PieceResult) => boolean) => agreed.filter(ok).length;
  const ones = count((r) => acc1(r.tempoBpm, r.reference.tempoBpm!));
  const twos = count((r) => acc2(r.tempoBpm, r.reference.tempoBpm!));
  const climaxes = results.filter((r) => r.deficitLu <= CLIMAX_TOLERANCE_LU).length;
  const openings = results.filter((r) => r.openingDeficitLu <= CLIMAX_TOLERANCE_LU).length;
  const audioMinutes = results.reduce((s, r) => s + r.reference.seconds, 0) / 60;
  const analysisMs = results.reduce((s, r) => s + r.analysisMs, 0);
  lines.push(
    '',
    `pieces: ${results.length}; estimators agree (two within 4%, same level) on ${agreed.length}, no agreement on ${results.length - agreed.length}`,
    `tempo on the ${agreed.length} agreed: Acc1 ${(ones / agreed.length).toFixed(3)} (${ones}), Acc2 ${(twos / agreed.length).toFixed(3)} (${twos})`,
    `peak in a 3 s window within ${CLIMAX_TOLERANCE_LU} LU of the loudest 3 s (EBU R128 short-term, K-weighted): ${climaxes} of ${results.length} (all pieces); the 3 s from the peak: ${openings}`,
    `analysis: ${(analysisMs / audioMinutes).toFixed(0)} ms per minute of audio (${audioMinutes.toFixed(0)} min in all)`,
  );
  return lines.join('\n');
}
