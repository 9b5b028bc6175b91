// Ground-truth beats of a ProTracker module (.mod, "M.K." and the like): a module is a score, so
// the time of every row is known exactly from its speed (ticks per row) and tempo (ticks at
// 2.5 / tempo s) effects. By the trackers' convention a beat is 4 rows and a bar 16, counted from
// each pattern's row 0. Renderers (ffmpeg's libopenmpt) play rows at these times from t = 0.
import fs from 'node:fs';
import type { Pcm } from '../../engine/mp3/decode.ts';
import { decodePiece, EXCERPT_SECONDS, soundtrackFiles } from './soundtracks.ts';

const HEADER_BYTES = 1084;
const ORDER_COUNT_OFFSET = 950;
const ORDER_TABLE_OFFSET = 952;
const TAG_OFFSET = 1080;
const ROWS_PER_PATTERN = 64;
const ROWS_PER_BEAT = 4;
const BEATS_PER_BAR = 4;
const DEFAULT_SPEED = 6;
const DEFAULT_TEMPO_BPM = 125;
/** Fxx below this sets the speed (ticks per row), from it up the tempo. */
const FIRST_TEMPO_VALUE = 32;
const EFFECT_POSITION_JUMP = 0xb;
const EFFECT_PATTERN_BREAK = 0xd;
const EFFECT_EXTENDED = 0xe;
const EXTENDED_PATTERN_DELAY = 0xe;
const EFFECT_SET_SPEED = 0xf;

export interface TrackerBeats {
  beatSeconds: number[];
  barSeconds: number[];
}

function channelsOf(tag: string): number | undefined {
  if (['M.K.', 'M!K!', 'FLT4', '4CHN'].includes(tag)) return 4;
  const n = /^(\d)CHN$/.exec(tag) ?? /^(\d\d)CH$/.exec(tag);
  return n ? Number(n[1]) : undefined;
}

/** Beats and bars of the module in the first `limitSeconds`, or undefined when it is not a module we read. */
export function trackerBeats(file: string, limitSeconds: number): TrackerBeats | undefined {
  const data = fs.readFileSync(file);
  if (data.length < HEADER_BYTES) return undefined;
  const channels = channelsOf(data.toString('latin1', TAG_OFFSET, TAG_OFFSET + 4));
  if (!channels) return undefined;
  const orders = data[ORDER_COUNT_OFFSET];
  const rowBytes = channels * 4;
  const cell = (pattern: number, row: number, channel: number) => HEADER_BYTES + (pattern * ROWS_PER_PATTERN + row) * rowBytes + channel * 4;
  let speed = DEFAULT_SPEED;
  let tempo = DEFAULT_TEMPO_BPM;
  let seconds = 0;
  let order = 0;
  let row = 0;
  const visited = new Set<string>();
  const beats: TrackerBeats = { beatSeconds: [], barSeconds: [] };
  while (order < orders && seconds < limitSeconds && !visited.has(`${order}:${row}`)) {
    visited.add(`${order}:${row}`);
    const pattern = data[ORDER_TABLE_OFFSET + order];
    let nextOrder: number | undefined;
    let nextRow = 0;
    let delayRows = 0;
    for (let channel = 0; channel < channels; channel++) {
      const at = cell(pattern, row, channel);
      if (at + 4 > data.length) return undefined;
      const effect = data[at + 2] & 0x0f;
      const param = data[at + 3];
      if (effect === EFFECT_SET_SPEED && param > 0) {
        if (param < FIRST_TEMPO_VALUE) speed = param;
        else tempo = param;
      } else if (effect === EFFECT_POSITION_JUMP) {
        nextOrder = param;
      } else if (effect === EFFECT_PATTERN_BREAK) {
        nextOrder ??= order + 1;
        nextRow = Math.min(ROWS_PER_PATTERN - 1, (param >> 4) * 10 + (param & 0x0f));
      } else if (effect === EFFECT_EXTENDED && param >> 4 === EXTENDED_PATTERN_DELAY) {
        delayRows = param & 0x0f;
      }
    }
    markBeat(beats, row, seconds);
    seconds += ((speed * 2.5) / tempo) * (1 + delayRows);
    if (nextOrder !== undefined) {
      order = nextOrder;
      row = nextRow;
    } else if (++row === ROWS_PER_PATTERN) {
      order++;
      row = 0;
    }
  }
  // The song's end (or the row it loops back to) is where its next beat falls when that row
  // starts one: an edit ending with the song's last bar ends on it.
  if (seconds < limitSeconds) markBeat(beats, row, seconds);
  return beats;
}

/** Row `row` of a pattern, played at `seconds`, as a beat (every ROWS_PER_BEAT rows) and a bar (every BEATS_PER_BAR beats). */
function markBeat(beats: TrackerBeats, row: number, seconds: number): void {
  if (row % ROWS_PER_BEAT !== 0) return;
  beats.beatSeconds.push(seconds);
  if (row % (ROWS_PER_BEAT * BEATS_PER_BAR) === 0) beats.barSeconds.push(seconds);
}

/** The installed tracker modules (tecnoballz-data) we can read, with their true beats and their audio (ffmpeg), one at a time. */
export function* trackerModules(): Generator<{ file: string; truth: TrackerBeats; pcm: Pcm }> {
  for (const file of soundtrackFiles().filter((f) => f.endsWith('.mod'))) {
    const truth = trackerBeats(file, EXCERPT_SECONDS);
    const pcm = truth && decodePiece(file);
    if (truth && pcm) yield { file, truth, pcm };
  }
}
