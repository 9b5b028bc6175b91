// After the peak, in an edit with a hit point: the clip's last D - H seconds, from the peak to an
// end on a beat (the track's own ending, or a bar line), in order of preference.
import type { Ending } from './plan.ts';
import { type BarGrid, barAt, rmsBetween, seamCost, wrapSeamCost } from './bar-grid.ts';
import { endChoice, ON_LINE_SECONDS, startCost } from './edges.ts';
import { CLIMAX_BARS, type Choice, JOIN_COST, MIN_PART_SECONDS, endsInPeakWindow, peakWindowCost } from './edit-choice.ts';

/** After the peak: the rest of the clip, and where the run through the peak ends. */
export type AfterPeak = Choice & { peakRunEnd: number };

/** A join out of the climax on a beat that is not a bar line costs this much more than one on a bar line. */
const BEAT_EXIT_COST = 0.3;
/** Beats after the peak that may be left on (not only bar lines): enough to end on a beat when D - H is shorter than a bar. */
const BEAT_EXIT_BARS = 2;
/**
 * When D - H is shorter than the peak rule's window (peakWindowSeconds after H), all of the
 * clip's last part plays inside it: a last part quieter than the climax it stands in for lowers
 * the rise the clip's analysis hears at H, and an earlier entrance wins (hr3-rlyeh D=60 H=58.43:
 * 0.8 s of the climax, then a bar-line ending at 0.6 of its level; the clip's peak 12.8 s early).
 * Such an ending costs this much times the share of the climax's level its last part loses.
 * Held out with H in the clip's last 3 s (81 recordings, 4 edits each, seed 5): 291 -> 299 of 324
 * land, none lost (1: 297; 3: 299; 5: 298); H drawn from the whole clip: unchanged.
 */
const TAIL_DROP_COST = 2;
/**
 * The shortest last part of all (seconds), taken only when no ending on a beat is found with
 * half a part: D - H a beat and a fraction on a slow track leaves the climax's next beat and a
 * tenth or two of a second, and the clip was cut that far past the beat (frozen-bubble's
 * frozen-mainzik-2p, 66.7 BPM, D - H 1.02 s: 0.12 s past it). The last part is then the stretch
 * just before a bar line (or the track's last samples), so the clip still ends on a beat.
 */
export const SHORTEST_LAST_PART_SECONDS = 0.1;

/** A place the run through the peak may leave: its time, and the bar line whose seam it is judged by. */
interface Exit {
  time: number;
  out: number;
  onBeat: boolean;
}

/** Where the run through the peak may leave, and the shortest last part that may follow (seconds). */
interface Exits {
  exits: Exit[];
  minLastPart: number;
}

/**
 * Bar lines after the peak's bar; and when D - H is too short to reach any of them with a last
 * part after it, the beats of the bars after the peak: the one case where a join is not on a bar
 * line, because with joins on bar lines only the clip could not end on a beat at all.
 */
function exitsAfterPeak(grid: BarGrid, rest: number): Exits {
  const peak = grid.analysis.peakSeconds;
  const peakBar = barAt(grid, peak);
  const { lines, bars } = grid;
  const exits: Exit[] = [];
  for (let x = Math.max(1, peakBar + 1); x < bars; x++) exits.push({ time: lines[x], out: x, onBeat: false });
  const firstLine = exits.find((exit) => exit.time - peak >= MIN_PART_SECONDS);
  if (firstLine && firstLine.time - peak + MIN_PART_SECONDS <= rest) return { exits, minLastPart: MIN_PART_SECONDS };
  const beatsUntil = lines[Math.min(bars, peakBar + 1 + BEAT_EXIT_BARS)];
  for (const beat of grid.analysis.beatTimesSeconds) {
    if (beat <= peak || beat >= beatsUntil) continue;
    const bar = barAt(grid, beat + ON_LINE_SECONDS);
    if (bar >= 0 && Math.abs(lines[bar] - beat) < ON_LINE_SECONDS) continue; // a bar line: already there
    exits.push({ time: beat, out: barAt(grid, beat) + 1, onBeat: true });
  }
  // Any exit, the bar line a beat after the peak too, may then lead to half a part (a song at 95
  // BPM, D - H 1.08 s: its one exit, 0.64 s after the peak, left 0.44 s, and the clip was cut mid-beat).
  return { exits, minLastPart: MIN_PART_SECONDS / 2 };
}

/**
 * After the peak: D - H seconds. Either the run through the peak goes on to where the clip ends,
 * or it leaves (at a bar line, or a beat when D - H is short) for a last part that ends the clip
 * on a beat: the track's ending, played to its last sample, or any bar line after the peak. Bars
 * alone cannot make an arbitrary D - H, so the last part begins with a pickup: a stretch of the
 * bar before its next downbeat, from a quiet moment, as a clip's start may.
 */
function afterPeaks(grid: BarGrid, rest: number, relaxed: boolean): AfterPeak[] {
  const found = lastPartsAfterPeak(grid, rest, relaxed, exitsAfterPeak(grid, rest));
  return found.some((choice) => choice.ending !== 'cut') ? found : [...found, ...detoursAfterPeak(grid, rest, relaxed)];
}

/**
 * Last parts as short as SHORTEST_LAST_PART_SECONDS that end on a beat, when D - H is so short
 * that the exits are the beats after the peak (exitsAfterPeak) and not even half a part fits
 * after them: asked for only when no other ending on a beat, detours included, was found.
 */
function shortestLastParts(grid: BarGrid, rest: number, relaxed: boolean): AfterPeak[] {
  const exits = exitsAfterPeak(grid, rest);
  if (exits.minLastPart >= MIN_PART_SECONDS) return [];
  return lastPartsAfterPeak(grid, rest, relaxed, { ...exits, minLastPart: SHORTEST_LAST_PART_SECONDS }).filter((choice) => choice.ending !== 'cut');
}

/** The run through the peak going on to where the clip ends, if the track lasts that long. */
function runOnAfterPeak(grid: BarGrid, rest: number): AfterPeak | undefined {
  const peak = grid.analysis.peakSeconds;
  if (peak + rest > grid.trackSeconds + 1e-9) return undefined;
  const end = endChoice(grid, peak + rest);
  return { cost: end.cost + peakWindowCost(grid, rest), runs: [], ending: end.ending, peakRunEnd: peak + rest };
}

/** afterPeaks' run through the peak to where the clip ends, and its last parts after each of `exits`. */
function lastPartsAfterPeak(grid: BarGrid, rest: number, relaxed: boolean, { exits, minLastPart }: Exits): AfterPeak[] {
  const peak = grid.analysis.peakSeconds;
  const { lines, bars, trackSeconds } = grid;
  const runOn = runOnAfterPeak(grid, rest);
  const found: AfterPeak[] = runOn ? [runOn] : [];
  // The track's last sample, and every bar line after the peak (the last one only when a decay follows it).
  const ends = [trackSeconds, ...lines.subarray(barAt(grid, peak) + 1, bars + 1).filter((line) => line < trackSeconds - ON_LINE_SECONDS)];
  // The climax's level over D - H, as the run through the peak would go on playing it; 0 (no
  // tail drop) when D - H outlasts the peak rule's window.
  const climaxLevel = endsInPeakWindow(grid, rest) ? rmsBetween(grid, peak, peak + rest) : 0;
  for (const exit of exits) {
    const through = exit.time - peak;
    const length = rest - through;
    // When D - H is that short, the climax may be left after a single beat, and the last part be half a part.
    if (through < Math.min(MIN_PART_SECONDS, grid.beatSeconds - ON_LINE_SECONDS) || length < minLastPart) continue;
    for (const end of ends) {
      const start = end - length;
      if (start <= peak || Math.abs(start - exit.time) < ON_LINE_SECONDS) continue;
      const into = barAt(grid, start - ON_LINE_SECONDS) + 1; // the downbeat the last part starts on or leads into
      // Leaving and coming back within one bar joins that bar to itself: nothing changes but the beat's phase.
      const seam = into === exit.out ? 0 : seamCost(grid, exit.out, into, relaxed);
      if (seam === undefined) continue;
      const tailDrop = climaxLevel > 0 ? TAIL_DROP_COST * Math.max(0, 1 - rmsBetween(grid, start, end) / climaxLevel) : 0;
      found.push(lastPart(grid, exit, end, length, seam, tailDrop));
    }
  }
  return found;
}

/**
 * The clip's last part, `length` seconds ending at source time `end`, after the run through the
 * peak leaves at `exit` across a join costing `seam`; `extraCost` is weighed first.
 */
function lastPart(grid: BarGrid, exit: Exit, end: number, length: number, seam: number, extraCost = 0): AfterPeak {
  const start = end - length;
  const finish = endChoice(grid, end);
  const cost = extraCost + (exit.onBeat ? BEAT_EXIT_COST : 0) + JOIN_COST + seam + startCost(grid, start) + finish.cost + peakWindowCost(grid, exit.time - grid.analysis.peakSeconds);
  return { cost, runs: [{ sourceStart: start, length }], ending: finish.ending, peakRunEnd: exit.time };
}

/** Whether a track has less than `rest` seconds after its peak: an ending must then go back to earlier bars. */
function runsOutAfterPeak(grid: BarGrid, rest: number): boolean {
  return grid.analysis.peakSeconds + rest > grid.trackSeconds;
}

/**
 * A detour: the climax plays on to a bar line (within CLIMAX_BARS of the peak's bar), goes to
 * another bar line (bars before the climax, as a song returns to a verse, the climax's own bars
 * again, or bars after it), plays whole bars from there without passing the peak, and then joins
 * the track's ending as the other endings do. For a track with less than D - H after its peak,
 * or whose ending one join within the seam limit cannot reach.
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

/**
 * A return's last part stays this far inside the source at both ends: placing the plan moves a
 * join half a crossfade early (10 ms) and the parts onto the MP3 frame phase (up to 13 ms), and
 * the part must neither start before the track nor reach the climax's attack.
 */
const RETURN_SLACK_SECONDS = 0.03;

/**
 * A return, for a track with less than D - H after its peak when no detour into its ending works
 * (a loop piece whose climax is in its last bars: the ending after it is shorter than a bar): the
 * climax plays on to a bar line after it, or to the track's end (where a loop piece wraps to its
 * start), then a last part from the bars before the climax ends the clip on a bar line before the
 * climax's bar, never playing the climax again.
 */
function returnsAfterPeak(grid: BarGrid, rest: number, relaxed: boolean): AfterPeak[] {
  const peak = grid.analysis.peakSeconds;
  const peakBar = barAt(grid, peak);
  const { lines, bars } = grid;
  const found: AfterPeak[] = [];
  const exits = [...exitsAfterPeak(grid, rest).exits, { time: lines[bars], out: bars, onBeat: false }];
  for (const exit of exits) {
    const through = exit.time - peak;
    const length = rest - through;
    if (through < MIN_PART_SECONDS || length < MIN_PART_SECONDS) continue;
    for (let e = 1; e <= peakBar && lines[e] <= peak - RETURN_SLACK_SECONDS; e++) {
      const start = lines[e] - length;
      if (start < RETURN_SLACK_SECONDS) continue;
      const into = barAt(grid, start - ON_LINE_SECONDS) + 1; // the downbeat the last part starts on or leads into
      const seam = exit.out === bars ? wrapSeamCost(grid, into, relaxed) : seamCost(grid, exit.out, into, relaxed);
      if (seam !== undefined) found.push(lastPart(grid, exit, lines[e], length, seam));
    }
  }
  return found;
}

/** How a clip may end, best first: the track's own ending, then a bar line (a cut mid-beat only when neither can be reached, or as an edit's last resort: cutEndingKinds). */
const ENDING_PREFERENCE: Ending[] = ['track_end', 'bar_line'];

/**
 * The endings after the peak in order of preference, one kind at a time: with joins within the
 * seam limit, the track's ending, then a bar line; only then with joins as abrupt as the track's
 * own most abrupt bar line, in the same order; last, whatever there is. The seam rule
 * (joins only where harmony and timbre match) comes before its ending rule: an ending the seams
 * allow is one D leaves room for. `edits`, against the ending first: joins within the 90th
 * percentile 355 -> 371 of ~405, track endings 198 -> 178 of 264, landing 264 of 264 both; on the
 * held-out sets 3 of 1,176 edits landed fewer (README). When the track's ending can be reached in
 * one join only across such an abrupt one, two joins within the seam limit by way of other bars (a
 * detour) come before the bar line. When the track runs out after its peak and the endings found replay the
 * climax's own bars (which the clip's own analysis may hear as a second, bigger entrance),
 * detours follow as a last resort, then returns to the bars before the climax (returnsAfterPeak).
 * Never an empty list; worked out only as far as they are asked for.
 */
function* endingsAfterPeak(grid: BarGrid, rest: number): Generator<AfterPeak[]> {
  const strict = afterPeaks(grid, rest, false);
  let relaxed: AfterPeak[] | undefined;
  const allRelaxed = () => (relaxed ??= afterPeaks(grid, rest, true));
  const endingOn = (found: AfterPeak[], ending: Ending) => found.filter((choice) => choice.ending === ending);
  let any = false;
  for (const ending of ENDING_PREFERENCE) {
    const kind = endingOn(strict, ending);
    if (kind.length > 0) {
      yield kind;
      any = true;
    } else if (ending === 'track_end' && allRelaxed().some((choice) => choice.ending === ending)) yield* smoothDetoursToTrackEnd(grid, rest, strict);
  }
  for (const ending of ENDING_PREFERENCE) {
    const kind = endingOn(allRelaxed(), ending);
    if (kind.length === 0) continue;
    yield kind;
    any = true;
  }
  // Nothing on a beat: the shortest last parts, else the cuts (the cut run-on is also the last resort, cutEndingKinds).
  let shortest: AfterPeak[] = [];
  if (!any) shortest = shortestLastParts(grid, rest, false);
  if (!any && shortest.length === 0) shortest = shortestLastParts(grid, rest, true);
  if (shortest.length > 0) yield shortest;
  const remaining = strict.length > 0 ? strict : allRelaxed();
  if (!any && shortest.length === 0 && remaining.length > 0) yield remaining;
  if (!runsOutAfterPeak(grid, rest)) return;
  for (const isRelaxed of [false, true]) {
    // Without any ending found, afterPeaks has already tried the detours, and found none.
    const detours = any ? detoursAfterPeak(grid, rest, isRelaxed) : [];
    if (detours.length > 0) yield detours;
  }
  for (const isRelaxed of [false, true]) {
    const returns = returnsAfterPeak(grid, rest, isRelaxed);
    if (returns.length > 0) yield returns;
  }
}

/**
 * Detours into the track's ending with both joins within the seam limit, when no single join
 * within it reaches the ending (and the track does not run out after its peak: then detours
 * follow anyway). Edits of real recordings (`npm run bench -- edits-all`, 81 recordings, 4 edits
 * each): joins within the track's 90th percentile of bar-line novelty 476 of 541 -> 517 of 562,
 * and the same edits land (there, seed 9001, and H in the clip's last 3 s, seeds 5 and 77).
 */
function* smoothDetoursToTrackEnd(grid: BarGrid, rest: number, strict: AfterPeak[]): Generator<AfterPeak[]> {
  if (strict.some((choice) => choice.ending === 'track_end') || runsOutAfterPeak(grid, rest)) return;
  const detours = detoursAfterPeak(grid, rest, false);
  if (detours.length > 0) yield detours;
}

/** The endings after the peak of the index-th kind in order of preference; undefined past the last. */
export type EndingKinds = (index: number) => AfterPeak[] | undefined;

/**
 * The kinds of ending after the peak (endingsAfterPeak), by index in order of preference:
 * undefined past the last. Each is worked out once, when first asked for: an anchor's first
 * checks ask for a few kinds, its wide search for all of them again.
 */
export function endingKinds(grid: BarGrid, rest: number): EndingKinds {
  const kinds = endingsAfterPeak(grid, rest);
  const found: AfterPeak[][] = [];
  return (index) => {
    while (found.length <= index) {
      const next = kinds.next();
      if (next.done) return undefined;
      found.push(next.value);
    }
    return found[index];
  };
}

/**
 * The one ending after the peak that cuts the clip mid-beat: the run through the peak going on to
 * where the clip ends, when that is off a bar line (last parts all end on one, or at the track's
 * end). As the one kind there is, it is an edit's last resort when no plan with an ending on a
 * beat lands its peak at H (edit-plan.ts hitEdit).
 */
export function cutEndingKinds(grid: BarGrid, rest: number): EndingKinds {
  const runOn = runOnAfterPeak(grid, rest);
  const kind = runOn?.ending === 'cut' ? [runOn] : undefined;
  return (index) => (index === 0 ? kind : undefined);
}
