// Edit mode: exactly D seconds of the track's own bars. Without a hit point: the best start
// (section downbeat, track start, or a pickup from a quiet moment), the track's ending, and the
// join between them where two bars sound alike. With a hit point H: the peak lands at H exactly,
// reached by a lead-in of earlier (quieter) bars, and followed by the track's ending.
import type { Analysis } from '../analysis/analyse.ts';
import { EngineError } from '../errors.ts';
import { type ClipPlan, type ClipRequest, type Ending, type Run, planOf } from './plan.ts';
import { type BarGrid, barAt, barGrid, rmsBetween, seamCost } from './bar-grid.ts';
import { endChoice, ON_LINE_SECONDS, startCost } from './edges.ts';
import { contentWorth } from './content.ts';
import { clipKeepsPeak } from './peak-landing.ts';
import { WINDOW_BEATS } from '../analysis/peak.ts';

/** Every join costs this much on top of how its bars differ: fewer joins are better. */
const JOIN_COST = 0.3;
/** No part shorter than this (a beat at 120 BPM): shorter ones would sound like stutters. */
export const MIN_PART_SECONDS = 0.5;
/** The run into the peak may start this many bars before the peak's bar (a build, a lead-in). */
const MAX_LEAD_IN_BARS = 8;
/** Bars from the peak's that may never play before it (the climax must first sound at H). */
const CLIMAX_BARS = 4;
/** Bars played before the peak must be quieter than this share of the peak's loudness. */
const LEAD_IN_LOUDNESS_SHARE = 0.9;

export interface Choice {
  cost: number;
  runs: Run[];
  ending: Ending;
}

/** A run into the peak: what plays before it, and where the run through the peak starts. */
interface LeadIn {
  cost: number;
  runs: Run[];
  peakRunStart: number;
}

/** After the peak: the rest of the clip, and where the run through the peak ends. */
type AfterPeak = Choice & { peakRunEnd: number };

function better<T extends { cost: number }>(a: T | undefined, b: T): T {
  return !a || b.cost < a.cost ? b : a;
}

/**
 * A clip whose run through the peak starts or stops within the peak rule's window (WINDOW_BEATS
 * either side) changes what that rule compares, and its own peak moves by a beat or more; so a
 * run that keeps the window whole is preferred by this much on each side.
 */
const PEAK_WINDOW_COST = 1;

/** PEAK_WINDOW_COST when `seconds` of the run through the peak on one side are fewer than the peak rule's window. */
function peakWindowCost(grid: BarGrid, seconds: number): number {
  return seconds < WINDOW_BEATS * grid.beatSeconds - ON_LINE_SECONDS ? PEAK_WINDOW_COST : 0;
}

/** Candidates kept of each side of the peak: their pairs are checked for where the clip's own peak falls. */
const CANDIDATES_PER_SIDE = 6;
/** Candidate plans whose clip is analysed for its peak (about 1 ms each) before the cheapest is taken as it is. */
const MAX_PEAK_CHECKS = 8;

function cheapest<T extends { cost: number }>(found: T[]): T[] {
  return found.sort((a, b) => a.cost - b.cost).slice(0, CANDIDATES_PER_SIDE);
}

/** Without a hit point: one run, or a start run joined to a run that ends with the track. */
function freeEdit(grid: BarGrid, duration: number): Choice | undefined {
  const { lines, bars, trackSeconds } = grid;
  let best: Choice | undefined;
  const starts = [0, trackSeconds - duration, ...lines.subarray(0, bars)];
  for (const s0 of starts) {
    if (s0 < 0 || s0 > trackSeconds - duration + 1e-9) continue;
    const runs = [{ sourceStart: s0, length: duration }];
    const end = endChoice(grid, s0 + duration);
    best = better(best, { cost: startCost(grid, s0) + end.cost - contentWorth(grid, runs), runs, ending: end.ending });
  }
  for (let e = 1; e < bars; e++) {
    const ending = trackSeconds - lines[e];
    const lead = duration - ending;
    if (lead < MIN_PART_SECONDS) continue;
    for (let x = 1; x < e; x++) {
      const s0 = lines[x] - lead;
      const seam = s0 >= 0 ? seamCost(grid, x, e) : undefined;
      if (seam === undefined) continue;
      const runs = [{ sourceStart: s0, length: lead }, { sourceStart: lines[e], length: ending }];
      best = better(best, { cost: startCost(grid, s0) + JOIN_COST + seam - contentWorth(grid, runs), runs, ending: 'track_end' as const });
    }
  }
  return best;
}

/** For each bar, whether it may play before the peak: not the climax itself, and quieter than `loudnessShare` of it. */
function leadInBars(grid: BarGrid, peakBar: number, loudnessShare: number): Int32Array {
  const peak = grid.analysis.peakSeconds;
  const peakLoudness = rmsBetween(grid, peak, peak + 2 * (grid.lines[Math.min(grid.bars, peakBar + 1)] - grid.lines[Math.max(0, peakBar)]));
  // Running count of bars that may not, so a run's check is O(1).
  const forbidden = new Int32Array(grid.bars + 1);
  for (let b = 0; b < grid.bars; b++) {
    const climax = b >= peakBar && b < peakBar + CLIMAX_BARS;
    forbidden[b + 1] = forbidden[b] + (climax || grid.barRms[b] >= loudnessShare * peakLoudness ? 1 : 0);
  }
  return forbidden;
}

/** Before the peak: the clip's first H seconds, ending where the run through the peak begins. The best few, best first. */
function leadIns(grid: BarGrid, hit: number, forbidden: Int32Array, relaxed: boolean): LeadIn[] {
  const peak = grid.analysis.peakSeconds;
  const peakBar = barAt(grid, peak);
  const found: LeadIn[] = [];
  const straight = peak - hit;
  if (straight >= 0) found.push({ cost: startCost(grid, straight) + peakWindowCost(grid, hit), runs: [], peakRunStart: straight });
  // The run through the peak starts on one of the bar lines before it (the first downbeat too,
  // for a climax in the first bar); before the first downbeat, on the track's start.
  const runStarts = peakBar < 0 ? [{ at: 0, into: 0 }] : [];
  for (let c = Math.max(0, peakBar - MAX_LEAD_IN_BARS); c <= peakBar; c++) runStarts.push({ at: grid.lines[c], into: c });
  for (const { at, into: c } of runStarts) {
    const lead = hit - (peak - at);
    if (lead < MIN_PART_SECONDS) continue;
    for (let x = 1; x < grid.bars; x++) {
      const s0 = grid.lines[x] - lead;
      if (s0 < 0) continue;
      const first = Math.max(0, barAt(grid, s0));
      // Bars first..x-1 play, and the crossfade out of the lead-in (and the frame alignment) the start of bar x.
      if (forbidden[Math.min(grid.bars, x + 1)] - forbidden[first] > 0) continue;
      const seam = seamCost(grid, x, c, relaxed);
      if (seam === undefined) continue;
      found.push({ cost: startCost(grid, s0) + JOIN_COST + seam + peakWindowCost(grid, peak - at), runs: [{ sourceStart: s0, length: lead }], peakRunStart: at });
    }
  }
  return cheapest(found);
}

/** A join out of the climax on a beat that is not a bar line costs this much more than one on a bar line. */
const BEAT_EXIT_COST = 0.3;
/** Beats after the peak that may be left on (not only bar lines): enough to end on a beat when D - H is shorter than a bar. */
const BEAT_EXIT_BARS = 2;

/** A place the run through the peak may leave: its time, and the bar line whose seam it is judged by. */
interface Exit {
  time: number;
  out: number;
  onBeat: boolean;
}

/**
 * Bar lines after the peak's bar; and when D - H is too short to reach any of them with a last
 * part after it, the beats of the bars after the peak: the one case where a join is not on a bar
 * line, because with joins on bar lines only the clip could not end on a beat at all.
 */
function exitsAfterPeak(grid: BarGrid, rest: number): Exit[] {
  const peak = grid.analysis.peakSeconds;
  const peakBar = barAt(grid, peak);
  const { lines, bars } = grid;
  const exits: Exit[] = [];
  for (let x = Math.max(1, peakBar + 1); x < bars; x++) exits.push({ time: lines[x], out: x, onBeat: false });
  const firstLine = exits.find((exit) => exit.time - peak >= MIN_PART_SECONDS);
  if (firstLine && firstLine.time - peak + MIN_PART_SECONDS <= rest) return exits;
  const beatsUntil = lines[Math.min(bars, peakBar + 1 + BEAT_EXIT_BARS)];
  for (const beat of grid.analysis.beatTimesSeconds) {
    if (beat <= peak || beat >= beatsUntil) continue;
    const bar = barAt(grid, beat + ON_LINE_SECONDS);
    if (bar >= 0 && Math.abs(lines[bar] - beat) < ON_LINE_SECONDS) continue; // a bar line: already there
    exits.push({ time: beat, out: barAt(grid, beat) + 1, onBeat: true });
  }
  return exits;
}

/**
 * After the peak: D - H seconds. Either the run through the peak goes on to where the clip ends,
 * or it leaves (at a bar line, or a beat when D - H is short) for a last part that ends the clip
 * on a beat: the track's ending, played to its last sample, or any bar line after the peak. Bars
 * alone cannot make an arbitrary D - H, so the last part begins with a pickup: a stretch of the
 * bar before its next downbeat, from a quiet moment, as a clip's start may.
 */
function afterPeaks(grid: BarGrid, rest: number, relaxed: boolean): AfterPeak[] {
  const peak = grid.analysis.peakSeconds;
  const { lines, bars, trackSeconds } = grid;
  const found: AfterPeak[] = [];
  if (peak + rest <= trackSeconds + 1e-9) {
    const end = endChoice(grid, peak + rest);
    found.push({ cost: end.cost + peakWindowCost(grid, rest), runs: [], ending: end.ending, peakRunEnd: peak + rest });
  }
  // The track's last sample, and every bar line after the peak (the last one only when a decay follows it).
  const ends = [trackSeconds, ...lines.subarray(barAt(grid, peak) + 1, bars + 1).filter((line) => line < trackSeconds - ON_LINE_SECONDS)];
  for (const exit of exitsAfterPeak(grid, rest)) {
    const through = exit.time - peak;
    const length = rest - through;
    // When D - H is that short, the climax may be left after a single beat, and the last part be half a part.
    if (through < Math.min(MIN_PART_SECONDS, grid.beatSeconds - ON_LINE_SECONDS) || length < (exit.onBeat ? MIN_PART_SECONDS / 2 : MIN_PART_SECONDS)) continue;
    for (const end of ends) {
      const start = end - length;
      if (start <= peak || Math.abs(start - exit.time) < ON_LINE_SECONDS) continue;
      const into = barAt(grid, start - ON_LINE_SECONDS) + 1; // the downbeat the last part starts on or leads into
      // Leaving and coming back within one bar joins that bar to itself: nothing changes but the beat's phase.
      const seam = into === exit.out ? 0 : seamCost(grid, exit.out, into, relaxed);
      if (seam === undefined) continue;
      const finish = endChoice(grid, end);
      found.push({ cost: (exit.onBeat ? BEAT_EXIT_COST : 0) + JOIN_COST + seam + startCost(grid, start) + finish.cost + peakWindowCost(grid, through), runs: [{ sourceStart: start, length }], ending: finish.ending, peakRunEnd: exit.time });
    }
  }
  return found.some((choice) => choice.ending !== 'cut') ? found : [...found, ...detoursAfterPeak(grid, rest, relaxed)];
}

/**
 * When the track has less than D - H after its peak: a detour. The climax plays on to a bar line
 * (within CLIMAX_BARS of the peak's bar), goes back to an earlier bar line (bars before the
 * climax, as a song returns to a verse, or the climax's own bars again), plays whole bars from
 * there without passing the peak, and then joins the track's ending as the other endings do.
 */
function detoursAfterPeak(grid: BarGrid, rest: number, relaxed: boolean): AfterPeak[] {
  const peak = grid.analysis.peakSeconds;
  const peakBar = barAt(grid, peak);
  const { lines, bars, trackSeconds } = grid;
  const found: AfterPeak[] = [];
  for (let x = Math.max(1, peakBar + 1); x < Math.min(bars, peakBar + 1 + CLIMAX_BARS); x++) {
    const through = lines[x] - peak;
    if (through < MIN_PART_SECONDS) continue;
    for (let e = 1; e < bars; e++) {
      const back = seamCost(grid, x, e, relaxed);
      if (back === undefined) continue;
      for (let y = e + 1; y < bars && (e > peakBar || y <= peakBar); y++) {
        const length = rest - through - (lines[y] - lines[e]);
        if (length < MIN_PART_SECONDS) break; // later bar lines leave even less
        const start = trackSeconds - length;
        if (start <= peak) continue;
        const into = barAt(grid, start - ON_LINE_SECONDS) + 1;
        const on = seamCost(grid, y, into, relaxed);
        if (on === undefined) continue;
        found.push({
          cost: 2 * JOIN_COST + back + on + startCost(grid, start) + peakWindowCost(grid, through),
          runs: [{ sourceStart: lines[e], length: lines[y] - lines[e] }, { sourceStart: start, length }],
          ending: 'track_end',
          peakRunEnd: lines[x],
        });
      }
    }
  }
  return found;
}

/** How a clip may end, best first: the track's own ending, then a bar line (a cut mid-beat only when neither can be reached). */
const ENDING_PREFERENCE: Ending[] = ['track_end', 'bar_line'];

/**
 * The endings after the peak in order of preference, a few of each kind at a time: the track's
 * ending, then a bar line; each with joins within the seam limit, then with joins as abrupt as the
 * track's own most abrupt bar line (a section change into the track's ending still ends better
 * than a stop on a bar line); last, whatever there is. Worked out only as far as they are asked for.
 */
function* endingsAfterPeak(grid: BarGrid, rest: number): Generator<AfterPeak[]> {
  const strict = afterPeaks(grid, rest, false);
  let relaxed: AfterPeak[] | undefined;
  let any = false;
  for (const ending of ENDING_PREFERENCE) {
    for (const isRelaxed of [false, true]) {
      const found = isRelaxed ? (relaxed ??= afterPeaks(grid, rest, true)) : strict;
      const kind = found.filter((choice) => choice.ending === ending);
      if (kind.length > 0) yield cheapest(kind);
      any ||= kind.length > 0;
    }
  }
  if (!any) yield cheapest(strict.length > 0 ? strict : relaxed!);
}

/** Candidate plans checked with the next kind of ending when none with the preferred kind keeps the peak at H. */
const FALLBACK_PEAK_CHECKS = 4;

/** Every lead-in with every ending, cheapest first. */
function pairs(befores: LeadIn[], afters: AfterPeak[]): Choice[] {
  const choices = befores.flatMap((before) => afters.map((after) => {
    const peakRun = { sourceStart: before.peakRunStart, length: after.peakRunEnd - before.peakRunStart };
    return { cost: before.cost + after.cost, runs: [...before.runs, peakRun, ...after.runs], ending: after.ending };
  }));
  return choices.sort((a, b) => a.cost - b.cost);
}

/**
 * The cheapest lead-in and ending whose clip, analysed on its own, has its peak at H (within
 * 25 ms): among the cheapest few with the most preferred ending, then among a few with the next
 * (H is what the caller asked for; an ending on a bar line is still on a beat); the cheapest
 * with the preferred ending when none does.
 */
function anchoredEdit(grid: BarGrid, duration: number, hit: number): Choice {
  const peakBar = barAt(grid, grid.analysis.peakSeconds);
  const quieter = leadInBars(grid, peakBar, LEAD_IN_LOUDNESS_SHARE);
  let befores = leadIns(grid, hit, quieter, false);
  if (befores.length === 0) befores = leadIns(grid, hit, quieter, true);
  // An early climax and a late H, or a track as loud all through: the lead-in may then be any
  // bars but the climax's own (the peak check still prefers one that leaves the peak at H).
  if (befores.length === 0) befores = leadIns(grid, hit, leadInBars(grid, peakBar, Infinity), true);
  const endings = endingsAfterPeak(grid, duration - hit);
  const preferred = endings.next().value;
  if (befores.length === 0 || !preferred) {
    throw new EngineError('hit_point_unreachable', `hit_point_seconds ${hit} cannot be met in an edit of ${duration} s of this track: it has too little material before or after its peak at ${grid.analysis.peakSeconds.toFixed(2)} s`, {
      min: 0,
      max: duration,
      peak_seconds: Math.round(grid.analysis.peakSeconds * 100) / 100,
    });
  }
  const choices = pairs(befores, preferred);
  const keepsPeak = (choice: Choice) => clipKeepsPeak(grid.analysis, choice.runs, hit);
  const found = choices.slice(0, MAX_PEAK_CHECKS).find(keepsPeak);
  if (found) return found;
  const next = endings.next().value;
  return (next && pairs(befores, next).slice(0, FALLBACK_PEAK_CHECKS).find(keepsPeak)) || choices[0];
}

export function editPlan(analysis: Analysis, request: ClipRequest): ClipPlan {
  const grid = barGrid(analysis);
  const duration = request.durationSeconds;
  const choice = request.hitPointSeconds === undefined ? freeEdit(grid, duration) : anchoredEdit(grid, duration, request.hitPointSeconds);
  const runs = choice?.runs ?? [{ sourceStart: 0, length: duration }];
  return planOf(request, runs, analysis.peakSeconds, choice?.ending ?? endChoice(grid, duration).ending);
}
