// Songs produced in LMMS: the demo and short projects that Debian's lmms-common ships, rendered by
// LMMS itself (`lmms --render`, package lmms). Their sound is a producer's: synthesisers, sampled
// drum kits, effects and a mixed master, not a General MIDI renderer's. A project holds one tempo
// and one time signature in its header, and its song starts on the first bar at 0 s, so its true
// beats fall every 60 / bpm seconds from 0 (LMMS counts its tempo in quarter notes) and its bars
// every 4 * numerator / denominator beats. The beats are counted only where the render is audible.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import type { Pcm } from '../../engine/mp3/decode.ts';
import { decodePiece } from './soundtracks.ts';
import type { ScoreBeats } from './scored-midi.ts';

const PROJECT_DIRS = ['/usr/share/lmms/projects/demos', '/usr/share/lmms/projects/shorties'];
const CACHE_DIR = path.join(os.tmpdir(), 'mla-lmms-songs');
/** Bars of this many quarter-note beats are what the analysis infers (meter.ts); a project written in another is left out. */
const METERS_BEATS = [2, 3, 4, 5, 6, 7];
/** A stretch of the render is audible where its level is within this many dB of its loudest block. */
const AUDIBLE_DB = 50;
/** Blocks over which the level is measured, seconds. */
const LEVEL_BLOCK_SECONDS = 0.05;
/** LMMS's longest render of one project, ms. */
const RENDER_TIMEOUT_MS = 300_000;

export interface LmmsHeader {
  bpm: number;
  /** Quarter-note beats per bar. */
  beatsPerBar: number;
}

export interface LmmsSong {
  file: string;
  truth: ScoreBeats;
  pcm: Pcm;
}

/** A project file's XML: `.mmpz` is Qt's qCompress (a 4-byte length, then zlib), `.mmp` plain. */
export function projectXml(file: string): string {
  const bytes = fs.readFileSync(file);
  return (file.endsWith('.mmpz') ? zlib.inflateSync(bytes.subarray(4)) : bytes).toString('utf8');
}

/** The tempo and bar length in a project's `<head>`; undefined when it has neither or its bar is not a whole number of beats. */
export function lmmsHeader(xml: string): LmmsHeader | undefined {
  const head = /<head\b[^>]*>/.exec(xml)?.[0];
  const attribute = (name: string) => Number(new RegExp(`\\b${name}="([0-9.]+)"`).exec(head ?? '')?.[1]);
  const bpm = attribute('bpm');
  const beatsPerBar = (4 * attribute('timesig_numerator')) / attribute('timesig_denominator');
  if (!(bpm > 0) || !Number.isInteger(beatsPerBar)) return undefined;
  return { bpm, beatsPerBar };
}

/** The installed projects, sorted; none without lmms-common. */
function lmmsProjects(): string[] {
  return PROJECT_DIRS.filter((dir) => fs.existsSync(dir))
    .flatMap((dir) => fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => path.join(dir, name)))
    .filter((file) => /\.mmpz?$/.test(file))
    .sort();
}

/** The project rendered by LMMS to a WAV in the temp directory (cached); undefined when LMMS is absent or fails. */
function rendered(file: string): string | undefined {
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const wav = path.join(CACHE_DIR, `${path.basename(file).replace(/\.mmpz?$/, '')}.wav`);
  if (fs.existsSync(wav)) return wav;
  const partial = `${wav}.${process.pid}.partial.wav`;
  const result = spawnSync('lmms', ['--allowroot', '--render', file, '--output', partial, '--format', 'wav'], {
    env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' },
    timeout: RENDER_TIMEOUT_MS,
    stdio: 'ignore',
  });
  if (result.status !== 0 || !fs.existsSync(partial)) return undefined;
  fs.renameSync(partial, wav);
  return wav;
}

/** The first and last seconds of `pcm` whose block level lies within AUDIBLE_DB of its loudest block. */
export function audibleSpan(pcm: Pcm): [number, number] {
  const block = Math.round(LEVEL_BLOCK_SECONDS * pcm.sampleRate);
  const blocks = Math.floor(pcm.channels[0].length / block);
  const power = new Float64Array(blocks);
  for (let b = 0; b < blocks; b++) {
    for (const channel of pcm.channels) for (let i = b * block; i < (b + 1) * block; i++) power[b] += channel[i] * channel[i];
  }
  const floor = Math.max(...power) * 10 ** (-AUDIBLE_DB / 10);
  const audible = Array.from(power.keys()).filter((b) => power[b] > floor);
  return audible.length === 0 ? [0, 0] : [audible[0] * LEVEL_BLOCK_SECONDS, (audible[audible.length - 1] + 1) * LEVEL_BLOCK_SECONDS];
}

/** The beats and bar lines of a project of `header` where `span` (seconds) is audible. */
export function lmmsBeats(header: LmmsHeader, span: [number, number]): ScoreBeats {
  const beatSeconds: number[] = [];
  const barSeconds: number[] = [];
  for (let k = 0, t = 0; t <= span[1]; k++, t = (k * 60) / header.bpm) {
    if (t < span[0]) continue;
    beatSeconds.push(t);
    if (k % header.beatsPerBar === 0) barSeconds.push(t);
  }
  return { beatSeconds, barSeconds };
}

/** The installed projects in a meter of METERS_BEATS, rendered, their first EXCERPT_SECONDS (decodePiece) with their true beats, one at a time. */
export function* lmmsSongs(): Generator<LmmsSong> {
  for (const file of lmmsProjects()) {
    const header = lmmsHeader(projectXml(file));
    if (!header || !METERS_BEATS.includes(header.beatsPerBar)) continue;
    const wav = rendered(file);
    const pcm = wav && decodePiece(wav);
    if (pcm) yield { file, truth: lmmsBeats(header, audibleSpan(pcm)), pcm };
  }
}
