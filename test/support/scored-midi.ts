// Songs written as scores, rendered by FluidSynth with the FluidR3 General MIDI sound font
// (fluidsynth, fluid-soundfont-gm). The score gives every beat and bar line: its tempo map times
// each tick, its time signatures say what a beat and a bar are. Two Debian packages hold such
// songs as files (SCORE_SETS): openttd-openmsx's are held out (no rule of the analysis or the
// planner was set on them); planetblupi-music-midi's are the scores of recordings
// (planetblupi-music-ogg) among the soundtracks the tempo rules were set on, so they are not held
// out. Freedoom's level music (the freedoom package's WADs, wad-music.ts) is a tuning set: rock,
// metal and electronic game music with drum kits, in 3/4 to 7/4, from 66 to 186 BPM.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { parseMidi, type MidiData } from 'midi-file';
import type { Pcm } from '../../engine/mp3/decode.ts';
import { decodePiece, EXCERPT_SECONDS } from './soundtracks.ts';
import { secondsAtTick, tempoMap, timedEvents, type TempoMap } from './midi-time.ts';
import { wadTunes } from './wad-music.ts';
import { OTHER_SOUND_FONTS, renderMidi, soundFontPresent } from './fluidsynth.ts';

/** The folders of scored songs, by set. */
const SCORE_SETS = {
  openmsx: '/usr/share/games/openttd/baseset/openmsx',
  planetblupi: '/usr/share/planetblupi/music',
} as const;
/** Freedoom's WADs: their level music, written out as MIDI files. */
const FREEDOOM_WADS = ['/usr/share/games/doom/freedoom1.wad', '/usr/share/games/doom/freedoom2.wad'];
export type ScoreSet = keyof typeof SCORE_SETS | 'freedoom';
const CACHE_DIR = path.join(os.tmpdir(), 'mla-scored-midi');
/** A bar of 6/8, 9/8 or 12/8 is felt in dotted beats: three of its eighths make one beat. */
const COMPOUND_GROUP = 3;
/**
 * Doom's MUS format counts 140 ticks a second; a tune converted from it to MIDI keeps that clock
 * (89 ticks a quarter at 95 BPM, say), so its ticks are time, not beats.
 */
const MUS_TICKS_PER_SECOND = 140;
/** A MIDI clock this close to MUS_TICKS_PER_SECOND (a share of it) is the MUS clock. */
const MUS_CLOCK_TOLERANCE = 0.02;
/** A note within this share of a quarter from the eighth-note grid is played on that grid (sixteenths and triplets lie farther). */
const ON_GRID_QUARTERS = 1 / 8;

export interface ScoreBeats {
  beatSeconds: number[];
  barSeconds: number[];
}

/** The installed scores of a set, sorted; none without its package. */
export function scoredMidiFiles(set: ScoreSet): string[] {
  const dir = set === 'freedoom' ? freedoomTunesDir() : SCORE_SETS[set];
  if (!dir || !fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((name) => name.endsWith('.mid')).sort().map((name) => path.join(dir, name));
}

/** Freedoom's tunes written out once as MIDI files in the temp directory (WAD and lump in the name); undefined without freedoom. */
function freedoomTunesDir(): string | undefined {
  const wads = FREEDOOM_WADS.filter((wad) => fs.existsSync(wad));
  if (wads.length === 0) return undefined;
  const dir = path.join(CACHE_DIR, 'freedoom');
  fs.mkdirSync(dir, { recursive: true });
  for (const wad of wads) {
    for (const { name, midi } of wadTunes(wad)) {
      const file = path.join(dir, `${path.basename(wad, '.wad')}-${name}.mid`);
      if (!fs.existsSync(file)) fs.writeFileSync(file, midi);
    }
  }
  return dir;
}

/** A time signature as beats: the ticks of one beat and the beats of one bar. */
function beatOf(numerator: number, denominator: number, ticksPerQuarter: number): { ticks: number; perBar: number } {
  const noteTicks = (ticksPerQuarter * 4) / denominator;
  const compound = denominator >= 8 && numerator > COMPOUND_GROUP && numerator % COMPOUND_GROUP === 0;
  return compound ? { ticks: noteTicks * COMPOUND_GROUP, perBar: numerator / COMPOUND_GROUP } : { ticks: noteTicks, perBar: numerator };
}

/** Every track's time signatures, by tick; 4/4 from tick 0 where the score sets none there. */
function timeSignatures(midi: MidiData): { tick: number; numerator: number; denominator: number }[] {
  const signatures: { tick: number; numerator: number; denominator: number }[] = [];
  for (const { tick, event } of timedEvents(midi)) if (event.type === 'timeSignature') signatures.push({ tick, numerator: event.numerator, denominator: event.denominator });
  signatures.sort((a, b) => a.tick - b.tick);
  if (signatures.length === 0 || signatures[0].tick > 0) signatures.unshift({ tick: 0, numerator: 4, denominator: 4 });
  return signatures;
}

/** The ticks of the first and the last note. */
function noteSpan(midi: MidiData): [number, number] {
  let first = Infinity;
  let last = 0;
  for (const { tick, event } of timedEvents(midi)) {
    if (event.type === 'noteOn' && event.velocity > 0) {
      first = Math.min(first, tick);
      last = Math.max(last, tick);
    }
  }
  return [first, last];
}

/** Whether the score keeps the MUS clock throughout: one tempo whose ticks come MUS_TICKS_PER_SECOND a second. */
function musClock({ ticksPerBeat, changes }: TempoMap): boolean {
  if (changes.some((change) => change.microsecondsPerBeat !== changes[0].microsecondsPerBeat)) return false;
  const ticksPerSecond = ticksPerBeat / (changes[0].microsecondsPerBeat / 1e6);
  return Math.abs(ticksPerSecond / MUS_TICKS_PER_SECOND - 1) < MUS_CLOCK_TOLERANCE;
}

/**
 * How many ticks after its notated grid the score plays its notes: the median offset from the
 * nearest eighth-note tick of the notes played on that grid (within ON_GRID_QUARTERS of it). Most
 * scores play on their grid (0); some are sequenced a constant offset after it (Planet Blupi's
 * later songs: 20 ticks of 192, a tenth of a beat), and a performed one plays around it. The beat
 * is heard where the notes sound, so the score's beats are placed there.
 */
function notesAfterGridTicks(midi: MidiData, ticksPerQuarter: number): number {
  const eighth = ticksPerQuarter / 2;
  const offsets: number[] = [];
  for (const { tick, event } of timedEvents(midi)) {
    if (event.type !== 'noteOn' || event.velocity === 0) continue;
    const offset = tick - Math.round(tick / eighth) * eighth;
    if (Math.abs(offset) <= ON_GRID_QUARTERS * ticksPerQuarter) offsets.push(offset);
  }
  offsets.sort((a, b) => a - b);
  return offsets[offsets.length >> 1] ?? 0;
}

/**
 * The score's beats and bar lines (seconds) from its first note to its last, and within
 * `limitSeconds`, where its notes sound (notesAfterGridTicks); undefined for a score timed in SMPTE
 * frames or by the MUS clock (its ticks are not beats). A new time signature starts a bar.
 */
export function scoreBeats(file: string, limitSeconds: number): ScoreBeats | undefined {
  const midi = parseMidi(fs.readFileSync(file));
  const tempo = tempoMap(midi);
  if (!tempo || musClock(tempo)) return undefined;
  const signatures = timeSignatures(midi);
  const [firstNote, lastNote] = noteSpan(midi);
  const played = notesAfterGridTicks(midi, tempo.ticksPerBeat);
  const beatSeconds: number[] = [];
  const barSeconds: number[] = [];
  let signature = 0;
  let beat = beatOf(signatures[0].numerator, signatures[0].denominator, tempo.ticksPerBeat);
  let beatInBar = 0;
  for (let tick = 0; tick <= lastNote; tick += beat.ticks) {
    if (signature + 1 < signatures.length && signatures[signature + 1].tick <= tick) {
      signature++;
      beat = beatOf(signatures[signature].numerator, signatures[signature].denominator, tempo.ticksPerBeat);
      tick = signatures[signature].tick;
      beatInBar = 0;
    }
    const seconds = secondsAtTick(tempo, tick + played);
    if (seconds > limitSeconds) break;
    if (tick + beat.ticks > firstNote) {
      beatSeconds.push(seconds);
      if (beatInBar === 0) barSeconds.push(seconds);
    }
    beatInBar = (beatInBar + 1) % beat.perBar;
  }
  return { beatSeconds, barSeconds };
}

/** The score rendered by FluidSynth with FluidR3, or `soundFont` where named (cached per score and font in the temp directory), its first EXCERPT_SECONDS as 44.1 kHz stereo float PCM; undefined without the tools or the font. */
export function renderScore(file: string, soundFont?: string): Pcm | undefined {
  if (!soundFontPresent(soundFont)) return undefined;
  const key = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 16);
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const font = soundFont ? `-${path.basename(soundFont).replace(/\.sf[23]$/, '')}` : '';
  const wav = path.join(CACHE_DIR, `${path.basename(file, '.mid')}-${key}${font}.wav`);
  if (!renderMidi(file, wav, soundFont)) return undefined;
  return decodePiece(wav);
}

/** One of OTHER_SOUND_FONTS for `file`, drawn from its name: the same on every run and machine. */
export function otherSoundFont(file: string): string {
  const draw = crypto.createHash('sha256').update(path.basename(file)).digest().readUInt32LE(0);
  return OTHER_SOUND_FONTS[draw % OTHER_SOUND_FONTS.length];
}

/**
 * A set's installed scores with their beats and rendered PCM, one at a time: rendered with FluidR3,
 * or with the sound font `soundFontOf` gives each (a score whose font is not installed is left out).
 */
export function* scoredSongs(set: ScoreSet, soundFontOf?: (file: string) => string): Generator<{ file: string; truth: ScoreBeats; pcm: Pcm }> {
  for (const file of scoredMidiFiles(set)) {
    const truth = scoreBeats(file, EXCERPT_SECONDS);
    const pcm = truth && renderScore(file, soundFontOf?.(file));
    if (truth && pcm) yield { file, truth, pcm };
  }
}
