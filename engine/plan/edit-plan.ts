// Edit mode: exactly D seconds of the track's own bars, as one search: candidates (an anchor, the
// lead-ins before it, the endings after it), one cost each, the cheapest of each side taken.
//
// Every inner join lies on a beat of the grid at both of its sides (a bar line, or in the bar after
// the anchor a beat at the same place of another bar), so the music keeps its beat across it. The
// fractions of a beat that D and H leave over fall where they are not heard as a stumble: the
// clip's start (a pickup into the bar that follows), its end (the decay of the track's own ending),
// or a uniform speed change of at most MAX_STRETCH. Where none can take it, the edit ends where
// D falls and says so (`ending: 'cut'`): it never joins off the grid.
//
// With a hit point H, the anchor plays at H: the track's peak, or where no plan can place the peak
// there (too near the track's start or end for D and H), the loudest section start that can be
// (`hitPointAnchor: 'entrance'`). Without one, the clip's start is the anchor, at clip time 0 or a
// pickup before it.
import { EngineError } from '../errors.ts';
import { type ClipPlan, type ClipRequest, type Ending, type HitAnchor, MAX_STRETCH, PLAN_SAMPLE_RATE, type Run, planOf } from './plan.ts';
import { frameShiftSeconds } from './frame-align.ts';
import { type PlanGrid, barAt, nearestIndex, placeInBar, rmsBetween } from './grid.ts';
import { ON_LINE_SECONDS, endChoice, startCost } from './edges.ts';
import { contentWorth } from './content.ts';
import { JOIN_COST, STRETCH_COST, beatJoinCost, cheaper, joinCost, stretchCost } from './joins.ts';
import { firstAtOrAfter } from '../analysis/beats.ts';

/** No part shorter than this: shorter ones sound like stutters. */
export const MIN_PART_SECONDS = 0.5;
/** The anchor's run plays at least this many bar lines past the anchor before it may join away on a bar line; before that, on a beat. */
const ANCHOR_BARS = 1;
/** The run that ends a clip may be this short: the ending's own decay, or its last beat. */
const MIN_LAST_PART_SECONDS = 0.2;
/** The run into the anchor may start this many bars before the anchor's bar (a build, a lead-in). */
const MAX_LEAD_IN_BARS = 8;
/** Bars played before the anchor should be quieter than this share of the anchor's bar... */
const LEAD_LOUDNESS_SHARE = 0.9;
/** ...each share louder costing this much. */
const LOUD_LEAD_COST = 2;
/** A join into the ending at another place in the bar than it leaves costs this much more: less than an ending off the beat. */
const SHIFTED_JOIN_COST = 1;
/** Two stretches closer than this play the same plan. */
const STRETCH_STEP = 1e-4;
/** A clip without a hit point may start up to this many seconds before a downbeat (a pickup). */
const MAX_PICKUP_SECONDS = 2;

/** The runs before the anchor's run, where that run starts (source seconds), and what they cost. */
interface Lead {
  runs: Run[];
  bodyStart: number;
  cost: number;
}

/** Where the anchor's run stops (source seconds), the runs after it, the ending, and what they cost. */
interface Tail {
  bodyEnd: number;
  runs: Run[];
  ending: Ending;
  cost: number;
}

/**
 * Lead-ins of an anchor at source `anchor` played at clip time `at`: the track itself up to the
 * anchor, or a run of other bars ending at a bar line and joined to a bar line before the anchor,
 * the track's first among them: a song that opens on its peak after a beat of pickup is led into
 * as a repeat goes back to its top.
 */
function leadIns(grid: PlanGrid, anchor: number, at: number): Lead | undefined {
  const anchorBar = barAt(grid, anchor);
  const anchorRms = grid.barRms[Math.max(0, anchorBar)] || 1e-9;
  const loudness = (from: number, to: number) => LOUD_LEAD_COST * Math.max(0, rmsBetween(grid, from, to) / anchorRms - LEAD_LOUDNESS_SHARE);
  let best: Lead | undefined;
  if (anchor - at >= -1e-6) {
    const start = Math.max(0, anchor - at);
    best = { runs: [], bodyStart: start, cost: startCost(grid, start) + loudness(start, anchor) };
  }
  for (let u = anchorBar; u >= Math.max(0, anchorBar - MAX_LEAD_IN_BARS); u--) {
    const leadSeconds = at - (anchor - grid.lines[u]);
    if (leadSeconds < MIN_PART_SECONDS) continue;
    for (let a = 1; a < grid.bars; a++) {
      const from = grid.lines[a] - leadSeconds;
      // The lead-in never plays the anchor's bar: the anchor is first heard at H.
      if (from < 0 || a === u || (from < grid.lines[anchorBar + 1] && grid.lines[a] > grid.lines[Math.max(0, anchorBar)])) continue;
      const edges = startCost(grid, from) + loudness(from, grid.lines[a]);
      if (best && edges + JOIN_COST >= best.cost) continue;
      const join = joinCost(grid, a, u);
      if (join === undefined) continue;
      best = cheaper(best, { runs: [{ sourceStart: from, length: leadSeconds }], bodyStart: grid.lines[u], cost: edges + join });
    }
  }
  return anchorBar < 0 ? cheaper(best, pickupLeadIn(grid, anchor, at, loudness)) : best;
}

/**
 * The lead-in of an anchor in the pickup before the track's first bar line (a song that opens on
 * its peak), where no bar line before it can be joined to: other bars, joined on a beat at the
 * anchor's place in the bar onto the anchor itself, as a repeat goes back to its top.
 */
function pickupLeadIn(grid: PlanGrid, anchor: number, at: number, loudness: (from: number, to: number) => number): Lead | undefined {
  const { beats } = grid;
  const into = nearestIndex(beats, anchor);
  if (into < 0 || Math.abs(beats[into] - anchor) >= ON_LINE_SECONDS || at < MIN_PART_SECONDS) return undefined;
  const place = placeInBar(grid, into);
  if (place < 0) return undefined;
  let best: Lead | undefined;
  // The lead-in starts after the pickup: the anchor is first heard at H.
  for (let a = firstAtOrAfter(beats, grid.lines[0] + at); a < beats.length; a++) {
    if (grid.beatInBar[a] !== place) continue;
    const from = beats[a] - at;
    const edges = startCost(grid, from) + loudness(from, beats[a]);
    if (best && edges + JOIN_COST >= best.cost) continue;
    const join = beatJoinCost(grid, a, into);
    if (join === undefined) continue;
    best = cheaper(best, { runs: [{ sourceStart: from, length: at }], bodyStart: anchor, cost: edges + join });
  }
  return best;
}

/**
 * Endings after an anchor at source `anchor` played at clip time `at`, for a clip of `duration`:
 * the track itself on to the clip's end, or a join at a beat after the anchor into the beat at
 * the same place of another bar, the track then playing to the clip's end. A join may leave any
 * beat into the bars whose run ends in the track's decaying ending (few: found by the time they
 * must end at); to end on a bar line or a beat elsewhere it leaves a bar line, or a beat of the
 * bar right after the anchor's when little of the clip is left.
 */
function endings(grid: PlanGrid, anchor: number, at: number, duration: number): Tail | undefined {
  const { beats } = grid;
  const after = duration - at;
  let best: Tail | undefined;
  if (anchor + after <= grid.trackSeconds + 1e-6) {
    const end = endChoice(grid, anchor + after);
    best = { bodyEnd: anchor + after, runs: [], ending: end.ending, cost: end.cost };
  }
  // `shifted`: the join may go on at another place in the bar (the bar it leaves is cut short or
  // lengthened by whole beats), at a cost: only into the decaying ending, where the meter is over.
  const consider = (v: number, w: number, rest: number, shifted: boolean) => {
    const shift = grid.beatInBar[w] !== grid.beatInBar[v];
    if (w === v || grid.beatInBar[w] < 0 || (shift && !shifted)) return;
    // The part after the join moves onto the anchor's MP3 frame phase (frame-align.ts): its end is heard that much away.
    const aligned = frameShiftSeconds(beats[w] - (at + beats[v] - anchor), anchor - at, PLAN_SAMPLE_RATE);
    const ending = endChoice(grid, beats[w] + rest + aligned);
    const extra = shift ? SHIFTED_JOIN_COST : 0;
    if (best && ending.cost + extra + JOIN_COST >= best.cost) return;
    const join = beatJoinCost(grid, v, w);
    if (join === undefined) return;
    best = cheaper(best, { bodyEnd: beats[v], runs: [{ sourceStart: beats[w], length: rest }], ending: ending.ending, cost: ending.cost + extra + join });
  };
  const anchorBar = barAt(grid, anchor);
  const midBarUntil = grid.lines[Math.min(grid.bars, anchorBar + 1 + ANCHOR_BARS)] ?? grid.trackSeconds;
  // The anchor's run plays at least the anchor's own beat.
  for (let v = firstAtOrAfter(beats, anchor + ON_LINE_SECONDS); v < beats.length; v++) {
    const phase = grid.beatInBar[v];
    const rest = duration - (at + beats[v] - anchor);
    if (rest < MIN_LAST_PART_SECONDS) break;
    if (phase < 0) continue;
    for (let w = firstAtOrAfter(beats, grid.tailStart - rest - ON_LINE_SECONDS); w < beats.length && beats[w] + rest <= grid.trackSeconds + ON_LINE_SECONDS; w++) consider(v, w, rest, true);
    const elsewhere = phase === 0 ? barAt(grid, beats[v] + 1e-3) >= anchorBar + ANCHOR_BARS : beats[v] < midBarUntil;
    if (!elsewhere) continue;
    for (let w = 0; w < beats.length && beats[w] + rest <= grid.trackSeconds + 1e-6; w++) consider(v, w, rest, false);
  }
  return best;
}

/** The cheapest plan with `anchor` (source seconds) at clip time `at`: lead-in, the anchor's run, ending. */
function aroundAnchor(grid: PlanGrid, anchor: number, at: number, duration: number): { runs: Run[]; ending: Ending; cost: number } | undefined {
  const lead = leadIns(grid, anchor, at);
  const tail = lead && endings(grid, anchor, at, duration);
  if (!lead || !tail) return undefined;
  const body = { sourceStart: lead.bodyStart, length: tail.bodyEnd - lead.bodyStart };
  return { runs: [...lead.runs, body, ...tail.runs], ending: tail.ending, cost: lead.cost + tail.cost };
}

/** What an edit with a hit point may place at H, in order of preference: the track's peak, then section starts, loudest first. */
function anchors(grid: PlanGrid): { seconds: number; kind: HitAnchor }[] {
  const entrances = Array.from(grid.sections)
    .filter((s) => Math.abs(s - grid.peakSeconds) > 1e-3)
    .sort((a, b) => grid.barRms[barAt(grid, b)] - grid.barRms[barAt(grid, a)]);
  return [{ seconds: grid.peakSeconds, kind: 'peak' as const }, ...entrances.map((seconds) => ({ seconds, kind: 'entrance' as const }))];
}

/**
 * The stretches an edit with its anchor at H may be played at: none; each that lets the track
 * itself, played on from the anchor, end on a beat at D; each that makes the D - H seconds after
 * H a whole number of the track's beats, so an ending joined on the beat can end on one too (each
 * at most MAX_STRETCH either way); and MAX_STRETCH either way, which ends within ON_LINE_SECONDS
 * of a beat that lies just beyond it.
 */
function stretches(grid: PlanGrid, anchor: number, after: number): number[] {
  const out = [1, 1 + MAX_STRETCH, 1 - MAX_STRETCH];
  for (let b = firstAtOrAfter(grid.beats, anchor + after / (1 + MAX_STRETCH)); b < grid.beats.length && grid.beats[b] - anchor <= after / (1 - MAX_STRETCH); b++) {
    out.push(after / (grid.beats[b] - anchor));
  }
  const period = grid.beatSeconds;
  for (let k = Math.ceil(after / (1 + MAX_STRETCH) / period); k * period <= after / (1 - MAX_STRETCH); k++) {
    const r = after / (k * period);
    if (out.every((other) => Math.abs(other - r) > STRETCH_STEP)) out.push(r);
  }
  return out;
}

/**
 * The cheapest plan around the first anchor that has one. A stretched plan costs at least
 * STRETCH_COST (the clip is played at another speed and made whole, not spliced), so stretches
 * are weighed only when the plan at the source's speed costs more than that.
 */
function hitEdit(grid: PlanGrid, request: ClipRequest, hit: number): ClipPlan {
  const duration = request.durationSeconds;
  for (const anchor of anchors(grid)) {
    let best = aroundAnchor(grid, anchor.seconds, hit, duration);
    let stretch = 1;
    if (!best || best.cost > STRETCH_COST) {
      for (const r of stretches(grid, anchor.seconds, duration - hit).slice(1)) {
        const plan = aroundAnchor(grid, anchor.seconds, hit / r, duration / r);
        const cost = plan && plan.cost + stretchCost(r);
        if (plan && cost !== undefined && (!best || cost < best.cost)) {
          best = { ...plan, cost };
          stretch = r;
        }
      }
    }
    if (best) return planOf(request, best.runs, grid, best.ending, anchor.seconds, anchor.kind, stretch);
  }
  throw unreachable(grid, duration, hit);
}

/**
 * The refusal of an H no plan can meet. Every H from which the track itself, played straight
 * through, puts its peak at H is met (a contiguous window): that range is what the caller can ask.
 */
function unreachable(grid: PlanGrid, duration: number, hit: number): EngineError {
  const hundredths = (t: number) => Math.round(t * 100) / 100;
  const peak = grid.peakSeconds;
  const min = hundredths(Math.max(0, peak - (grid.trackSeconds - duration)));
  // H is less than D (the peak must play inside the clip).
  const max = Math.min(hundredths(peak), hundredths(duration) - 0.01);
  return new EngineError(
    'hit_point_unreachable',
    `hit_point_seconds ${hit} cannot be met: the track's peak is at ${peak.toFixed(2)} s, so an edit of ${duration} s can place it from ${min.toFixed(2)} to ${max.toFixed(2)} s`,
    { min, max, peak_seconds: hundredths(peak) },
  );
}

/**
 * An edit without a hit point: a start on a bar line (or a pickup before one), a join at a bar line
 * into the bars of the track's ending, or the track itself to its end. Whatever D leaves over goes
 * to the pickup or the ending's decay.
 */
function freeEdit(grid: PlanGrid, request: ClipRequest): ClipPlan {
  const duration = request.durationSeconds;
  type Candidate = { runs: Run[]; ending: Ending; cost: number };
  const scored = (runs: Run[], ending: Ending, cost: number): Candidate => ({ runs, ending, cost: cost - contentWorth(grid, runs) });
  // The track's last D seconds: no join, ending with the track.
  const lastStart = grid.trackSeconds - duration;
  let best: Candidate = scored([{ sourceStart: lastStart, length: duration }], 'track_end', startCost(grid, lastStart));
  for (let s = 0; s < grid.bars; s++) {
    const start = grid.lines[s];
    const alone = endChoice(grid, start + duration);
    if (start + duration <= grid.trackSeconds) best = cheaper(best, scored([{ sourceStart: start, length: duration }], alone.ending, startCost(grid, start) + alone.cost));
    for (let w = s + 1; w < grid.bars; w++) {
      const ending = grid.trackSeconds - grid.lines[w];
      // The join at bar line v leaves `duration - ending` before it, a pickup of up to MAX_PICKUP_SECONDS making up the rest.
      const body = duration - ending;
      // v's bar line lies at most a pickup before `start + body`.
      for (let v = Math.max(s + 1, firstAtOrAfter(grid.lines, start + body - MAX_PICKUP_SECONDS)); v < w && grid.lines[v] <= start + body; v++) {
        const pickup = body - (grid.lines[v] - start);
        if (start - pickup < 0 || grid.lines[v] - start < MIN_PART_SECONDS || ending < MIN_PART_SECONDS) continue;
        const join = joinCost(grid, v, w);
        if (join === undefined) continue;
        const runs = [{ sourceStart: start - pickup, length: grid.lines[v] - start + pickup }, { sourceStart: grid.lines[w], length: ending }];
        best = cheaper(best, scored(runs, 'track_end', startCost(grid, start - pickup) + join));
      }
    }
  }
  return planOf(request, best.runs, grid, best.ending);
}

export function editPlan(grid: PlanGrid, request: ClipRequest): ClipPlan {
  return request.hitPointSeconds === undefined ? freeEdit(grid, request) : hitEdit(grid, request, request.hitPointSeconds);
}
