// Real recordings for analysis accuracy: the music of Debian's game-soundtrack packages, decoded by
// ffmpeg, with reference tempi from independent estimators (aubio, soundstretch, bpm-tools) and the
// short-term loudness (EBU R128, K-weighted, ffmpeg's ebur128 filter) of every 3 s window. The
// slow measurements are cached per file in the temp directory. Absent packages or tools: no pieces.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import type { Pcm } from '../../engine/mp3/decode.ts';

/**
 * Music folders of hyperrogue-music, pushover-data, planetblupi-music-ogg, drascula-music,
 * tecnoballz-data, tomatoes-data, and (added as a held-out set after the tempo rules were set)
 * extremetuxracer-data, lincity-ng-data, frozen-bubble-data.
 */
const MUSIC_DIRS = [
  '/usr/share/hyperrogue/music',
  '/usr/share/pushover/themes',
  '/usr/share/planetblupi/music',
  '/usr/share/scummvm/drascula/audio',
  '/usr/share/games/tecnoballz/musics',
  '/usr/share/tomatoes/music',
  '/usr/share/games/etr/music',
  '/usr/share/games/lincity-ng/music/default',
  '/usr/share/games/frozen-bubble/snd',
];
const MUSIC_EXTENSIONS = ['.ogg', '.mod', '.it', '.xm', '.s3m'];
/** Long pieces (planetblupi's run to 29 min) are measured on their opening: analysis and references alike. */
export const EXCERPT_SECONDS = 240;
/** Jingles and stingers have no tempo to speak of. */
const MIN_SECONDS = 30;
const SAMPLE_RATE = 44100;
/** Two estimators agree when within this relative difference (the Acc1 tolerance). */
export const AGREEMENT = 0.04;
const CACHE_DIR = path.join(os.tmpdir(), 'mla-soundtrack-references');
const CACHE_VERSION = 1;

export interface Reference {
  file: string;
  seconds: number;
  /** Each estimator's BPM (NaN when it gave none). */
  estimates: { aubio: number; soundstretch: number; bpmTools: number };
  /** Median of the estimators that agree within AGREEMENT at the same metrical level; undefined if none do. */
  tempoBpm?: number;
  /** Short-term loudness (LUFS) of the 3 s window ending at 0.1 s, 0.2 s, ... */
  shortTermLufs: number[];
}

export { hasTool } from './requirements.ts';
import { hasTool } from './requirements.ts';

export function toolsPresent(): boolean {
  return ['ffmpeg', 'aubio', 'soundstretch', 'bpm'].every(hasTool);
}

/**
 * Music held out of every figure the analysis and the edit rules were tuned on, added after them
 * (2026-11-28) to check edits on material they never saw: warzone2100-music's albums and
 * supertux-data's music (Opus and Ogg). Not among soundtrackFiles.
 */
const HELD_OUT_DIRS = [
  '/usr/share/games/warzone2100/music/albums/aftermath_soundtrack',
  '/usr/share/games/warzone2100/music/albums/legacy_soundtrack',
  '/usr/share/games/warzone2100/music/albums/original_soundtrack',
  ...['antarctic', 'castle', 'forest', 'misc', 'retro', 'tropical'].map((world) => `/usr/share/games/supertux2/music/${world}`),
];
const HELD_OUT_EXTENSIONS = ['.ogg', '.opus'];
/**
 * A second held-out set, added later still (2026-11-28, twenty-second session) and never tuned
 * on: the music of neverball-data, xmoto-data and hedgewars-data (Ogg), more of it in song form
 * (drums, verses and choruses) than the first. Not among soundtrackFiles nor heldOutFiles.
 */
const FRESH_DIRS = ['/usr/share/games/neverball/bgm', '/usr/share/games/xmoto/Textures/Musics', '/usr/share/games/hedgewars/Data/Music'];

/**
 * A third held-out set (2026-11-28, twenty-third session), never tuned on: singularity-music and
 * asc-music, and the music inside nexuiz-music's and ufoai-music's pk3 archives (zip files,
 * unpacked once with unzip into the temp directory). Much of it orchestral and ambient (UFO: Alien
 * Invasion), some electronic (Nexuiz). Not among the other sets.
 */
const THIRD_DIRS = ['/usr/share/games/singularity/music', '/usr/share/games/asc/music'];
const THIRD_ARCHIVES = ['/usr/share/games/nexuiz/data/music.pk3', '/usr/share/games/ufoai/base/0music.pk3'];
/** asc-music's are MP3; the rest Ogg. */
const THIRD_EXTENSIONS = ['.ogg', '.mp3'];

/**
 * A fourth held-out set (2026-11-29, twenty-ninth session), never tuned on: pingus-data's music,
 * tracker modules (Impulse Tracker and Scream Tracker) in song form, most with drums. Not among
 * the other sets.
 */
const FOURTH_DIRS = ['/usr/share/games/pingus/data/music'];

/**
 * A fifth held-out set (2026-12-02, forty-third session), never tuned on: the music of
 * wesnoth-1.16-music (orchestral, much of it in song form with percussion) and freedroidrpg-data
 * (electronic and ambient), Ogg. Not among the other sets.
 */
const FIFTH_DIRS = ['/usr/share/games/wesnoth/1.16/data/core/music', '/usr/share/freedroidrpg/data/sound/music'];

/**
 * The folder `archive`'s Ogg files are unpacked into (flat: the two archives hold no two of the
 * same name), unpacked on first use into a folder of its own, then renamed into place (a bench
 * run alongside finds either the whole folder or none); undefined when the archive, unzip, or an
 * Ogg file in it is missing.
 */
function unpackedDir(archive: string): string | undefined {
  if (!fs.existsSync(archive)) return undefined;
  const dir = path.join(CACHE_DIR, 'archives', path.relative('/usr/share/games', archive).replaceAll('/', '-'));
  // Unpacked already: no need to look for unzip (a shell spawned each time the set is listed).
  if (fs.existsSync(dir)) return dir;
  if (!hasTool('unzip')) return undefined;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const partial = fs.mkdtempSync(`${dir}.`);
  try {
    // -C: match *.ogg whatever the case; unzip exits non-zero when nothing matches.
    execFileSync('unzip', ['-q', '-j', '-o', '-C', archive, '*.ogg', '-d', partial], { stdio: 'ignore' });
    fs.renameSync(partial, dir);
  } catch {
    fs.rmSync(partial, { recursive: true, force: true });
  }
  return fs.existsSync(dir) ? dir : undefined;
}

/** The music files (by extension) of those of `dirs` that exist, sorted. */
function musicIn(dirs: string[], extensions: string[]): string[] {
  return dirs.filter((dir) => fs.existsSync(dir))
    .flatMap((dir) => fs.readdirSync(dir).filter((f) => extensions.includes(path.extname(f).toLowerCase())).map((f) => path.join(dir, f)))
    .sort();
}

export function soundtrackFiles(): string[] {
  return musicIn(MUSIC_DIRS, MUSIC_EXTENSIONS);
}

/** The held-out music installed (HELD_OUT_DIRS). */
export function heldOutFiles(): string[] {
  return musicIn(HELD_OUT_DIRS, HELD_OUT_EXTENSIONS);
}

/** The second held-out set installed (FRESH_DIRS). */
export function freshFiles(): string[] {
  return musicIn(FRESH_DIRS, HELD_OUT_EXTENSIONS);
}

/** The third held-out set installed (THIRD_DIRS and THIRD_ARCHIVES). */
export function thirdFiles(): string[] {
  const archives = THIRD_ARCHIVES.map(unpackedDir).filter((dir) => dir !== undefined);
  return musicIn([...THIRD_DIRS, ...archives], THIRD_EXTENSIONS);
}

/** The fourth held-out set installed (FOURTH_DIRS). */
export function fourthFiles(): string[] {
  return musicIn(FOURTH_DIRS, MUSIC_EXTENSIONS);
}

/** The fifth held-out set installed (FIFTH_DIRS). */
export function fifthFiles(): string[] {
  return musicIn(FIFTH_DIRS, HELD_OUT_EXTENSIONS);
}

/** Each set a bench can measure (BENCH_MUSIC), by name: `tuned` is the one the rules were tuned on. */
const BENCH_SETS: Record<string, () => string[]> = {
  tuned: soundtrackFiles,
  'held-out': heldOutFiles,
  fresh: freshFiles,
  third: thirdFiles,
  fourth: fourthFiles,
  fifth: fifthFiles,
};

/** The music a bench measures: the set BENCH_MUSIC names (BENCH_SETS), `tuned` by default. */
export function benchMusic(): { name: string; files: string[] } {
  const name = process.env.BENCH_MUSIC ?? 'tuned';
  const files = Object.hasOwn(BENCH_SETS, name) ? BENCH_SETS[name] : undefined;
  if (!files) throw new Error(`BENCH_MUSIC must be one of ${Object.keys(BENCH_SETS).join(', ')}, not ${name}`);
  return { name, files: files() };
}

/** The piece (its first EXCERPT_SECONDS) as 44.1 kHz stereo float PCM, or undefined if ffmpeg cannot read it. */
export function decodePiece(file: string): Pcm | undefined {
  return ffmpegPcm(['-i', file, '-t', String(EXCERPT_SECONDS)], 2 * 4 * SAMPLE_RATE * (EXCERPT_SECONDS + 5));
}

/**
 * What ffmpeg makes of `inputs` (its input and filter arguments) as 44.1 kHz stereo float PCM, at
 * most `maxBytes` of it; undefined if ffmpeg cannot read them.
 */
export function ffmpegPcm(inputs: string[], maxBytes: number): Pcm | undefined {
  const result = spawnSync('ffmpeg', ['-v', 'error', ...inputs, '-ar', String(SAMPLE_RATE), '-ac', '2', '-f', 'f32le', '-'], { maxBuffer: maxBytes });
  if (result.status !== 0 || result.stdout.length === 0) return undefined;
  const interleaved = new Float32Array(result.stdout.buffer, result.stdout.byteOffset, result.stdout.length / 4);
  const frames = interleaved.length / 2;
  const channels = [new Float32Array(frames), new Float32Array(frames)];
  for (let i = 0; i < frames; i++) {
    channels[0][i] = interleaved[2 * i];
    channels[1][i] = interleaved[2 * i + 1];
  }
  return { sampleRate: SAMPLE_RATE, channels };
}

function firstNumber(text: string, pattern: RegExp): number {
  const match = pattern.exec(text);
  return match ? Number(match[1]) : NaN;
}

/** Standard output and error of a command, together; run concurrently with the others. */
function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve) => execFile(command, args, { maxBuffer: 1 << 30 }, (_, stdout, stderr) => resolve(`${stdout}\n${stderr}`)));
}

/** The three estimators on one WAV file, each with its default settings (bpm-tools: 84-146 BPM). */
async function estimatesOf(wav: string): Promise<Reference['estimates']> {
  const [aubio, soundstretch, bpmTools] = await Promise.all([
    run('aubio', ['tempo', '-i', wav]).then((out) => firstNumber(out, /([\d.]+)\s*bpm/)),
    run('soundstretch', [wav, '-bpm']).then((out) => firstNumber(out, /Detected BPM rate\s+([\d.]+)/)),
    // bpm-tools reads 44.1 kHz mono float from standard input.
    run('sh', ['-c', 'ffmpeg -v error -i "$1" -ac 1 -f f32le - | bpm', 'sh', wav]).then((out) => firstNumber(out, /^\s*([\d.]+)\s*$/m)),
  ]);
  return { aubio, soundstretch, bpmTools };
}

/**
 * Agreement at the same metrical level only: a pair within AGREEMENT of each other. Estimators that
 * agree only up to an octave (one says 85, another 170) give no reference, as which level is right
 * is exactly what is being measured; the piece is left out and counted as such.
 */
export function agreedTempo(estimates: Reference['estimates']): number | undefined {
  const values = Object.values(estimates).filter((v) => Number.isFinite(v) && v > 0);
  let best: number[] = [];
  for (const v of values) {
    const group = values.filter((w) => Math.abs(w - v) / v <= AGREEMENT);
    if (group.length >= 2 && group.length > best.length) best = group;
  }
  if (best.length < 2) return undefined;
  best.sort((a, b) => a - b);
  return best.length % 2 ? best[(best.length - 1) / 2] : (best[best.length / 2 - 1] + best[best.length / 2]) / 2;
}

/** Short-term loudness every 0.1 s from ffmpeg's ebur128 filter (K-weighted, 3 s windows). */
async function shortTermLufsOf(wav: string): Promise<number[]> {
  const log = await run('ffmpeg', ['-nostats', '-hide_banner', '-i', wav, '-af', 'ebur128', '-f', 'null', '-']);
  return [...log.matchAll(/t:\s*([\d.]+)\s+TARGET:.*?S:\s*(-?[\d.]+|-inf)/g)].map((m) => (m[2] === '-inf' ? -Infinity : Number(m[2])));
}

/** Cache key: the file's bytes, so that a changed package is measured again. */
function contentKey(file: string): string {
  return crypto.createHash('sha1').update(`${CACHE_VERSION} ${EXCERPT_SECONDS} `).update(fs.readFileSync(file)).digest('hex').slice(0, 16);
}

/** References of one piece, measured once and cached; undefined when it is too short or unreadable. */
export async function referenceOf(file: string): Promise<Reference | undefined> {
  const key = contentKey(file);
  const cached = path.join(CACHE_DIR, `${key}.json`);
  if (fs.existsSync(cached)) {
    const value = JSON.parse(fs.readFileSync(cached, 'utf8')) as Reference | { unusable: true };
    return 'unusable' in value ? undefined : { ...value, shortTermLufs: value.shortTermLufs.map((v) => v ?? -Infinity) };
  }
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const wav = path.join(CACHE_DIR, `${key}.wav`);
  try {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', file, '-t', String(EXCERPT_SECONDS), '-ar', String(SAMPLE_RATE), '-ac', '2', wav], { stdio: 'ignore' });
  } catch {
    fs.writeFileSync(cached, JSON.stringify({ unusable: true }));
    return undefined;
  }
  const seconds = fs.statSync(wav).size / (4 * SAMPLE_RATE);
  let reference: Reference | undefined;
  if (seconds >= MIN_SECONDS) {
    const [estimates, shortTermLufs] = await Promise.all([estimatesOf(wav), shortTermLufsOf(wav)]);
    reference = { file, seconds, estimates, tempoBpm: agreedTempo(estimates), shortTermLufs };
  }
  fs.rmSync(wav, { force: true });
  // JSON has no -Infinity: silent windows are stored as null.
  fs.writeFileSync(cached, JSON.stringify(reference ?? { unusable: true }));
  return reference;
}

/** The references of `files` (the tuned soundtrack set unless told) that can be measured. */
export async function soundtrackReferences(files = soundtrackFiles()): Promise<Reference[]> {
  if (!toolsPresent()) return [];
  const references: Reference[] = [];
  for (const file of files) {
    const reference = await referenceOf(file);
    if (reference) references.push(reference);
  }
  return references;
}
