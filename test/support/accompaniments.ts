// Songs to tune on: accompaniments written by MMA (Musical MIDI Accompaniment, Debian's `mma`) in
// its standard library's grooves (rock, swing, latin, waltzes, marches, 6/8, 5/4), over drawn
// chord progressions at drawn tempos, rendered by FluidSynth with the FluidR3 General MIDI sound
// font. The generator knows every beat and bar line it wrote. A rule's constants may be set on
// these songs; nothing is judged on them (the judging sets are the modules, the charts and the
// scores of `npm run bench -- edits`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { parseMidi } from 'midi-file';
import type { Pcm } from '../../engine/mp3/decode.ts';
import { seededRandom, type Random } from '../../catalog/demo/random.ts';
import { ffmpegPcm } from './soundtracks.ts';
import { secondsAtTick, tempoMap } from './midi-time.ts';
import { RENDER_SAMPLE_RATE, renderMidi, soundFontPresent } from './fluidsynth.ts';

const GROOVE_DIR = '/usr/share/mma/lib/stdlib';
const CACHE_DIR = path.join(os.tmpdir(), 'mla-accompaniments');
/** Each song lasts about this long: enough bars for a tempo and a meter. */
const SONG_SECONDS = 32;
/** The harmonic rhythms' stream is seeded this far from the songs' own. */
const RHYTHM_SEED_OFFSET = 1;
const MAX_PCM_BYTES = 2 * 4 * RENDER_SAMPLE_RATE * (SONG_SECONDS + 30);
/** A bar of 6/8 is felt in two dotted beats, whatever MMA's own beat count for the groove. */
const COMPOUND_BEATS_PER_BAR = 2;

export interface Groove {
  /** MMA's groove name. */
  name: string;
  /** The library file that defines it (a family of grooves). */
  family: string;
  /** MMA beats (MIDI quarter notes) per bar. */
  mmaBeatsPerBar: number;
  /** Felt beats per bar: MMA's count, or two in 6/8. */
  beatsPerBar: number;
  /** The range of beat tempos drawn for it, BPM. */
  bpmRange: [number, number];
}

export interface Accompaniment {
  name: string;
  groove: Groove;
  bpm: number;
  rhythm: HarmonicRhythm;
  pcm: Pcm;
  beatSeconds: number[];
  barSeconds: number[];
}

/**
 * Beat tempos drawn per kind of groove (BPM), as such pieces are usually played: slow ballads,
 * fast swing and quick dances, waltzes, and the rest between.
 */
const TEMPO_RANGES: [RegExp, [number, number]][] = [
  [/fast|bebop|quickstep|bluegrass|polka|vienese|charleston|jive/i, [140, 210]],
  [/slow|ballad|lullaby|hymn|spiritual/i, [55, 95]],
  [/waltz/i, [90, 170]],
  [/./, [80, 160]],
];

/** Grooves left out: the metronome, the empty groove, and those with no beat of their own. */
const SKIPPED_FAMILIES = /^(metronome|none|trance)/;
/** Variants left out: intros, endings and fills change length or stop. */
const SKIPPED_VARIANTS = /(intro|end|fill|break)/i;

/** Every usable groove of MMA's standard library; none without `mma`. */
export function grooves(): Groove[] {
  if (!fs.existsSync(GROOVE_DIR)) return [];
  const out: Groove[] = [];
  for (const file of fs.readdirSync(GROOVE_DIR).filter((name) => name.endsWith('.mma')).sort()) {
    const family = path.basename(file, '.mma');
    if (SKIPPED_FAMILIES.test(family)) continue;
    const text = fs.readFileSync(path.join(GROOVE_DIR, file), 'utf8');
    const time = Number(/^\s*Time\s+(\d+)/m.exec(text)?.[1] ?? 4);
    const compound = /^\s*Timesig\s+(6|12)[\s/]+8/m.test(text);
    const bpmRange = TEMPO_RANGES.find(([pattern]) => pattern.test(family))![1];
    for (const match of text.matchAll(/^\s*DefGroove\s+(\S+)/gm)) {
      if (SKIPPED_VARIANTS.test(match[1])) continue;
      out.push({ name: match[1], family, mmaBeatsPerBar: time, beatsPerBar: compound ? COMPOUND_BEATS_PER_BAR : time, bpmRange });
    }
  }
  return out;
}

/** Common progressions, in scale degrees of a major key (m: minor chord, 7: dominant seventh). */
const PROGRESSIONS = [
  ['I', 'vi', 'IV', 'V7'],
  ['I', 'IV', 'V7', 'I'],
  ['ii', 'V7', 'I', 'I'],
  ['I', 'V', 'vi', 'IV'],
  ['vi', 'IV', 'I', 'V'],
  ['I', 'I', 'IV', 'IV', 'I', 'I', 'V7', 'V7'],
  ['I', 'iii', 'IV', 'V'],
];
const KEYS = ['C', 'Db', 'D', 'Eb', 'E', 'F', 'Gb', 'G', 'Ab', 'A', 'Bb', 'B'];
const DEGREES: Record<string, [number, string]> = { I: [0, ''], ii: [2, 'm'], iii: [4, 'm'], IV: [5, ''], V: [7, ''], V7: [7, '7'], vi: [9, 'm'] };

function chordOf(key: number, degree: string): string {
  const [step, quality] = DEGREES[degree];
  return KEYS[(key + step) % 12] + quality;
}

/**
 * How often the chords change: once a bar, twice (on beats 1 and 3 of a bar of 4 MMA beats), or
 * once every two bars. Songs change chords at all three rates; a rule that reads bar lines from
 * harmonic change must not rely on exactly one change a bar.
 */
export type HarmonicRhythm = 'bar' | 'half-bar' | 'two-bars';

/** The harmonic rhythms a groove of `mmaBeatsPerBar` can take (two chords a bar only where a bar halves into whole beats of 2). */
function harmonicRhythms(mmaBeatsPerBar: number): HarmonicRhythm[] {
  return mmaBeatsPerBar === 4 ? ['bar', 'half-bar', 'two-bars'] : ['bar', 'two-bars'];
}

/** The chord line of bar `bar` (0-based): MMA gives each listed chord one beat and `/` repeats the one before. */
function chordLine(chords: string[], bar: number, rhythm: HarmonicRhythm): string {
  const at = (k: number) => chords[k % chords.length];
  if (rhythm === 'half-bar') return `${at(2 * bar)} / ${at(2 * bar + 1)} /`;
  return at(rhythm === 'two-bars' ? Math.floor(bar / 2) : bar);
}

/** The MMA source of one song: its tempo, groove and chords at the drawn harmonic rhythm. */
function songSource(groove: Groove, bpm: number, bars: number, random: Random, rhythm: HarmonicRhythm): string {
  const progression = random.pick(PROGRESSIONS);
  const key = random.int(0, 11);
  const chords = progression.map((degree) => chordOf(key, degree));
  const mmaTempo = (bpm * groove.mmaBeatsPerBar) / groove.beatsPerBar;
  const lines = [`Tempo ${mmaTempo.toFixed(2)}`, `Groove ${groove.name}`];
  for (let bar = 0; bar < bars; bar++) lines.push(`${bar + 1} ${chordLine(chords, bar, rhythm)}`);
  return `${lines.join('\n')}\n`;
}

/** Beats and bar lines (seconds) of the MIDI file MMA wrote: its tempo map from tick 0, the groove's bars. */
function writtenBeats(midiFile: string, groove: Groove, bars: number): { beatSeconds: number[]; barSeconds: number[] } {
  const tempo = tempoMap(parseMidi(fs.readFileSync(midiFile)))!;
  const beatTicks = (tempo.ticksPerBeat * groove.mmaBeatsPerBar) / groove.beatsPerBar;
  const beatSeconds: number[] = [];
  const barSeconds: number[] = [];
  for (let beat = 0; beat < bars * groove.beatsPerBar; beat++) {
    const seconds = secondsAtTick(tempo, beat * beatTicks);
    beatSeconds.push(seconds);
    if (beat % groove.beatsPerBar === 0) barSeconds.push(seconds);
  }
  return { beatSeconds, barSeconds };
}

/** One song written by MMA and rendered (cached in the temp directory); undefined without the tools. */
function accompaniment(groove: Groove, bpm: number, random: Random, rhythm: HarmonicRhythm): Accompaniment | undefined {
  const barSecondsEach = (60 / bpm) * groove.beatsPerBar;
  const bars = Math.max(4, Math.ceil(SONG_SECONDS / barSecondsEach));
  const source = songSource(groove, bpm, bars, random, rhythm);
  const name = `${groove.name}-${crypto.createHash('sha256').update(source).digest('hex').slice(0, 12)}`;
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const base = path.join(CACHE_DIR, name);
  if (!fs.existsSync(`${base}.wav`)) {
    fs.writeFileSync(`${base}.mma`, source);
    const written = spawnSync('mma', ['-f', `${base}.mid`, `${base}.mma`]);
    if (written.status !== 0 || !fs.existsSync(`${base}.mid`) || !renderMidi(`${base}.mid`, `${base}.wav`)) return undefined;
  }
  const pcm = ffmpegPcm(['-i', `${base}.wav`], MAX_PCM_BYTES);
  if (!pcm) return undefined;
  return { name, groove, bpm, rhythm, pcm, ...writtenBeats(`${base}.mid`, groove, bars) };
}

/**
 * `count` songs drawn by `seed`: a groove, a beat tempo in its range (log-uniform), chords, and
 * their harmonic rhythm. The rhythm is drawn from a stream of its own, so each song's groove, tempo
 * and chords do not depend on the rhythms drawn (a song that changes chords once a bar keeps its
 * cached render whatever the others draw).
 */
export function* accompaniments(count: number, seed: number): Generator<Accompaniment> {
  if (!soundFontPresent()) return;
  const all = grooves();
  if (all.length === 0) return;
  const random = seededRandom(seed);
  const rhythms = seededRandom(seed + RHYTHM_SEED_OFFSET);
  for (let i = 0; i < count; i++) {
    const groove = random.pick(all);
    const [low, high] = groove.bpmRange;
    const bpm = low * (high / low) ** random.next();
    const song = accompaniment(groove, bpm, random, rhythms.pick(harmonicRhythms(groove.mmaBeatsPerBar)));
    if (song) yield song;
  }
}
