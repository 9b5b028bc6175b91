// Before the peak, in an edit with a hit point: the clip's first H seconds, ending where the run
// through the peak begins: a run of earlier, quieter bars (never the climax's own) joined at a bar
// line, or the track itself when the peak comes late enough; or a run joined to two of the
// track's quietest bars, a breath before the climax; or quiet bars before the climax looped.
import type { Run } from './plan.ts';
import { type BarGrid, barAt, rmsBetween, seamCost } from './bar-grid.ts';
import { startCost } from './edges.ts';
import { CANDIDATES_PER_SIDE, CLIMAX_BARS, JOIN_COST, MIN_PART_SECONDS, WIDE_PER_SIDE, byCost, keepFewest, peakWindowCost, peakWindowSeconds } from './edit-choice.ts';

/** The run into the peak may start this many bars before the peak's bar (a build, a lead-in). */
const MAX_LEAD_IN_BARS = 8;
/** Bars played before the peak must be quieter than this share of the peak's loudness. */
const LEAD_IN_LOUDNESS_SHARE = 0.9;

/** A run into the peak: what plays before it, what that costs, and where the run through the peak starts (enough to pair it with an ending). */
export interface LeadInRuns {
  cost: number;
  runs: Run[];
  peakRunStart: number;
}

/** A lead-in ranked also by how quiet its run-up to H is. */
export interface LeadIn extends LeadInRuns {
  /** Mean RMS (linear) of what plays in the peak rule's window before H: the lower, the clearer the rise at H. */
  before: number;
}

/** Lead-ins kept for the quietest run-up to H, besides the cheapest: on a track about as loud all through, the clearest rise. */
const QUIETEST_LEAD_INS = 3;
/** The quietest kept of all: those not among the CANDIDATES_PER_SIDE cheapest give the QUIETEST_LEAD_INS. */
const QUIETEST_KEPT = CANDIDATES_PER_SIDE + QUIETEST_LEAD_INS;

/**
 * The lead-ins to H an edit may pair with an ending: how many there are, the WIDE_PER_SIDE
 * cheapest (cheapest first) and the QUIETEST_KEPT quietest (byQuiet). A plan weighs hundreds of
 * lead-ins and pairs a few: each is made only when it is kept, as the search offers it
 * (wouldKeep, keep), so a plan's search leaves little for the garbage collector (its pauses, a
 * millisecond or two every few dozen plans, were much of the plan's p99).
 */
export interface LeadIns {
  count: number;
  cheapest: LeadIn[];
  quietest: LeadIn[];
  /** Lead-ins that loop quiet bars (loopedLeadIns), the LOOPED_KEPT cheapest: made only when no run of quiet bars leads to H. */
  looped: LeadIn[];
}

/** Quieter run-up to H first; equally quiet, the cheaper. */
function byQuiet(a: { cost: number; before: number }, b: { cost: number; before: number }): number {
  return a.before - b.before || a.cost - b.cost;
}

/** What wouldKeep compares with the kept lead-ins: one object for every lead-in offered, none made per offer. */
const offered = { cost: 0, before: 0 };

/** Counts a lead-in of this cost and run-up as found, and says whether it is kept (then `keep` it). */
function wouldKeep(found: LeadIns, cost: number, before: number): boolean {
  found.count++;
  offered.cost = cost;
  offered.before = before;
  const { cheapest, quietest } = found;
  return cheapest.length < WIDE_PER_SIDE || byCost(offered, cheapest[cheapest.length - 1]) < 0
    || quietest.length < QUIETEST_KEPT || byQuiet(offered, quietest[quietest.length - 1]) < 0;
}

function keep(found: LeadIns, leadIn: LeadIn): void {
  keepFewest(found.cheapest, leadIn, WIDE_PER_SIDE, byCost);
  keepFewest(found.quietest, leadIn, QUIETEST_KEPT, byQuiet);
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

/**
 * Whether bars from..to may all play before the peak (`forbidden`: leadInBars' running count): a
 * run ending at bar line `to` plays bars up to to-1, and its crossfade out (and the frame
 * alignment) the start of bar `to`.
 */
function playable(grid: BarGrid, forbidden: Int32Array, from: number, to: number): boolean {
  return forbidden[Math.min(grid.bars, to + 1)] - forbidden[Math.max(0, from)] === 0;
}

/**
 * Where the clip's first run starts when it is `length` seconds ending at bar line `end`;
 * undefined when that is before the track's start or plays a bar `forbidden` before the peak.
 */
function firstRunStart(grid: BarGrid, forbidden: Int32Array, end: number, length: number): number | undefined {
  const start = grid.lines[end] - length;
  return start >= 0 && playable(grid, forbidden, barAt(grid, start), end) ? start : undefined;
}

/**
 * Where the run through the peak may start (`at`, seconds) and the bar it starts (`into`): on one
 * of the bar lines before the peak (the first downbeat too, for a climax in the first bar);
 * before the first downbeat, on the track's start.
 */
function peakRunStarts(grid: BarGrid): { at: number; into: number }[] {
  const peakBar = barAt(grid, grid.analysis.peakSeconds);
  const starts = peakBar < 0 ? [{ at: 0, into: 0 }] : [];
  for (let c = Math.max(0, peakBar - MAX_LEAD_IN_BARS); c <= peakBar; c++) starts.push({ at: grid.lines[c], into: c });
  return starts;
}

/** Before the peak: the clip's first H seconds as one run, ending where the run through the peak begins (or the track itself). All of them, into `found`. */
function leadIns(grid: BarGrid, hit: number, forbidden: Int32Array, relaxed: boolean, found: LeadIns): void {
  const peak = grid.analysis.peakSeconds;
  const straight = peak - hit;
  if (straight >= 0) {
    const cost = startCost(grid, straight) + peakWindowCost(grid, hit), before = beforeRms(grid, straight, hit);
    if (wouldKeep(found, cost, before)) keep(found, { cost, runs: [], peakRunStart: straight, before });
  }
  for (const { at, into: c } of peakRunStarts(grid)) {
    const lead = hit - (peak - at);
    if (lead < MIN_PART_SECONDS) continue;
    for (let x = 1; x < grid.bars; x++) {
      const s0 = firstRunStart(grid, forbidden, x, lead);
      if (s0 === undefined) continue;
      const seam = seamCost(grid, x, c, relaxed);
      if (seam === undefined) continue;
      const cost = startCost(grid, s0) + JOIN_COST + seam + peakWindowCost(grid, peak - at), before = beforeRms(grid, at, hit, s0, lead);
      if (wouldKeep(found, cost, before)) keep(found, { cost, runs: [{ sourceStart: s0, length: lead }], peakRunStart: at, before });
    }
  }
}

/**
 * Lead-ins of two runs, for a late H on a short track: a single run into the peak would have to
 * play the climax's own bars (a 60 s track whose peak is at 25 s has 35 s after it, and H = 50 in
 * a 60 s edit needs about 40 s before the run through the peak). So: the clip's start on some run
 * that ends at bar line y, joined to whole bars z..x-1, joined at bar line x into the run through
 * the peak. O(bars^3) for each start of that run: only worked out when one run finds nothing.
 */
function twoRunLeadIns(grid: BarGrid, hit: number, forbidden: Int32Array, found: LeadIns): void {
  const peak = grid.analysis.peakSeconds;
  const { lines, bars } = grid;
  for (const { at, into: c } of peakRunStarts(grid)) {
    const lead = hit - (peak - at);
    for (let x = 2; x < bars; x++) {
      const intoPeak = seamCost(grid, x, c, true);
      if (intoPeak === undefined) continue;
      for (let z = x - 1; z >= 1 && playable(grid, forbidden, z, x); z--) {
        const leadA = lead - (lines[x] - lines[z]);
        if (leadA < MIN_PART_SECONDS) break; // earlier z only lengthen the middle run
        for (let y = 1; y < bars; y++) {
          const s0 = firstRunStart(grid, forbidden, y, leadA);
          if (s0 === undefined) continue;
          const seam = seamCost(grid, y, z, true);
          if (seam === undefined) continue;
          const cost = startCost(grid, s0) + 2 * JOIN_COST + seam + intoPeak + peakWindowCost(grid, peak - at);
          const before = beforeRms(grid, at, hit, lines[z], lines[x] - lines[z], s0, leadA);
          if (!wouldKeep(found, cost, before)) continue;
          keep(found, { cost, runs: [{ sourceStart: s0, length: leadA }, { sourceStart: lines[z], length: lines[x] - lines[z] }], peakRunStart: at, before });
        }
      }
    }
  }
}

/** A looped lead-in plays its span of quiet bars at most this many times over. */
const MAX_LOOP_REPEATS = 8;
/** Looped lead-ins kept, the cheapest. */
const LOOPED_KEPT = 4;

/**
 * Lead-ins that loop quiet bars before the climax, for a late H on a track whose climax comes
 * early and whose music after it stays loud: the quiet bars before the peak are too few for one
 * run of them, and a run of the loud bars after the climax plays entrances that the clip hears
 * as its peak, while the climax, reached from loud bars, hardly rises (Frets on Fire's "Chaos
 * god", D = 30, H = 28.84). So: the clip's start on some run of quiet bars that ends at bar line
 * y, joined to the quiet bars q..r-1 before the peak's bar, played `repeats` times (each time
 * joined back to bar line q at the end), then the run through the peak from bar line q, which
 * plays them once more on into the climax: an intro extended by looping it, as an editor would.
 * The wrap from r back to q is judged as any seam. The LOOPED_KEPT cheapest. With one repeat it is
 * a lead-in twoRunLeadIns also makes (z = q, x = r), but that search runs only when no run of any
 * bars leads to H. Worked out only when no run of quiet bars does: 0.07-0.56 ms for all the
 * lead-ins of a late H on a 184 s song (.scratch/looptime.mts).
 */
function loopedLeadIns(grid: BarGrid, hit: number, forbidden: Int32Array): LeadIn[] {
  const peak = grid.analysis.peakSeconds;
  const { lines, bars } = grid;
  const peakBar = barAt(grid, peak);
  const kept: LeadIn[] = [];
  for (const { at, into: q } of peakRunStarts(grid)) {
    const lead = hit - (peak - at);
    // The join from the first run's end (bar line y) into the loop's start, whatever the span and repeats.
    const seamInto = Array.from({ length: bars }, (_, y) => seamCost(grid, y, q, true));
    // playable(q, r) takes in bar r (the run's crossfade out): r stops short of the climax's bar.
    for (let r = q + 1; r < peakBar && playable(grid, forbidden, q, r); r++) {
      const wrap = seamInto[r];
      if (wrap === undefined) continue;
      const span = lines[r] - lines[q];
      for (let repeats = 1; repeats <= MAX_LOOP_REPEATS; repeats++) {
        const leadA = lead - repeats * span;
        if (leadA < MIN_PART_SECONDS) break;
        for (let y = 1; y < bars; y++) {
          const seam = seamInto[y];
          const s0 = seam === undefined ? undefined : firstRunStart(grid, forbidden, y, leadA);
          if (seam === undefined || s0 === undefined) continue;
          const cost = startCost(grid, s0) + (repeats + 1) * JOIN_COST + seam + repeats * wrap + peakWindowCost(grid, peak - at);
          if (kept.length === LOOPED_KEPT && cost >= kept[kept.length - 1].cost) continue;
          const before = beforeRms(grid, at, hit, lines[q], span, repeats > 1 ? lines[q] : s0, repeats > 1 ? span : leadA);
          const loop = Array.from({ length: repeats }, () => ({ sourceStart: lines[q], length: span }));
          keepFewest(kept, { cost, runs: [{ sourceStart: s0, length: leadA }, ...loop], peakRunStart: at, before }, LOOPED_KEPT, byCost);
        }
      }
    }
  }
  return kept;
}

/** Bars of a breath before the climax: the peak rule's window before H (WINDOW_BEATS) in 4/4. */
const BREATH_BARS = 2;
/** Quietest spans of BREATH_BARS tried as a breath. */
const BREATH_SPANS = 8;
/** Breath lead-ins kept, the cheapest. */
const BREATH_KEPT = 6;

/**
 * Lead-ins that take a breath before the climax: the clip's start on some run that ends at bar
 * line y, joined to one of the quietest spans of BREATH_BARS whole bars, joined into the peak's
 * own bar line. The clip's analysis hears the climax rise over what plays in the peak rule's
 * window before it, and a run into the peak brings the track's own build there: on a track about
 * as loud all through, an entrance in the lead-in rose more. The BREATH_KEPT cheapest, made for
 * an anchor's wide search (anchored-edit.ts wideLanding), whose budget is fixed, and for its first
 * checks only when H leaves the clip less than the peak rule's window after it.
 */
export function breathLeadIns(grid: BarGrid, hit: number): LeadInRuns[] {
  const peak = grid.analysis.peakSeconds;
  const peakBar = barAt(grid, peak);
  const { lines, bars } = grid;
  const kept: LeadInRuns[] = [];
  if (peakBar < 1) return kept;
  const forbidden = leadInBars(grid, peakBar, Infinity);
  const at = lines[peakBar];
  const spans: { q: number; rms: number }[] = [];
  for (let q = 0; q + BREATH_BARS <= bars; q++) {
    // The bars just before the peak's are the track's own run-up: a lead-in of one run.
    if (q + BREATH_BARS === peakBar || !playable(grid, forbidden, q, q + BREATH_BARS)) continue;
    keepFewest(spans, { q, rms: rmsBetween(grid, lines[q], lines[q + BREATH_BARS]) }, BREATH_SPANS, (a, b) => a.rms - b.rms);
  }
  for (const { q } of spans) {
    const intoPeak = seamCost(grid, q + BREATH_BARS, peakBar, true);
    if (intoPeak === undefined) continue;
    const breath = lines[q + BREATH_BARS] - lines[q];
    const leadA = hit - (peak - at) - breath;
    if (leadA < MIN_PART_SECONDS) continue;
    for (let y = 1; y < bars; y++) {
      const s0 = y === q ? undefined : firstRunStart(grid, forbidden, y, leadA);
      if (s0 === undefined) continue;
      const seam = seamCost(grid, y, q, true);
      if (seam === undefined) continue;
      const cost = startCost(grid, s0) + 2 * JOIN_COST + seam + intoPeak + peakWindowCost(grid, peak - at);
      if (kept.length === BREATH_KEPT && cost >= kept[kept.length - 1].cost) continue;
      keepFewest(kept, { cost, runs: [{ sourceStart: s0, length: leadA }, { sourceStart: lines[q], length: breath }], peakRunStart: at }, BREATH_KEPT, byCost);
    }
  }
  return kept;
}

/**
 * Mean RMS of the clip's last WINDOW_BEATS beats before H (or all of them, when H comes sooner):
 * the head of the run through the peak, from `peakRunStart`, and before it the end of what the
 * lead-in plays: its last run (`lastStart`, `lastLength`), then the one before it, if any (source
 * seconds; numbers, not runs: it is worked out for every lead-in, and only the kept are made).
 */
function beforeRms(grid: BarGrid, peakRunStart: number, hit: number, lastStart = 0, lastLength = 0, earlierStart = 0, earlierLength = 0): number {
  const peak = grid.analysis.peakSeconds;
  const window = Math.min(hit, peakWindowSeconds(grid));
  const head = Math.min(window, peak - peakRunStart);
  const last = Math.min(window - head, lastLength);
  const earlier = Math.min(window - head - last, earlierLength);
  const sum = rmsBetween(grid, peak - head, peak) * head + sumOfEnd(grid, lastStart + lastLength, last) + sumOfEnd(grid, earlierStart + earlierLength, earlier);
  const seconds = head + last + earlier;
  return seconds > 0 ? sum / seconds : 0;
}

/** RMS times seconds over the last `seconds` before source time `end` (nothing when that is none). */
function sumOfEnd(grid: BarGrid, end: number, seconds: number): number {
  return seconds > 0 ? rmsBetween(grid, end - seconds, end) * seconds : 0;
}

/** The CANDIDATES_PER_SIDE cheapest lead-ins, and apart from them the QUIETEST_LEAD_INS whose run-up to H is quietest (equally quiet: the cheaper first). */
export function keptLeadIns({ cheapest, quietest, looped }: LeadIns): { cheapest: LeadIn[]; quietest: LeadIn[]; looped: LeadIn[] } {
  const kept = cheapest.slice(0, CANDIDATES_PER_SIDE);
  return { cheapest: kept, quietest: quietest.filter((leadIn) => !kept.includes(leadIn)).slice(0, QUIETEST_LEAD_INS), looped };
}

/**
 * Every lead-in to H: of quieter bars with joins within the seam limit, else as abrupt as the
 * track's most abrupt bar line. An early climax and a late H, or a track as loud all through,
 * leaves none: the lead-in may then be any bars but the climax's own (the peak check still
 * prefers one that leaves the peak at H). Worked out once per anchor: the first checks keep a few
 * (keptLeadIns), a wider search more.
 */
export function leadInCandidates(grid: BarGrid, hit: number): LeadIns {
  const peakBar = barAt(grid, grid.analysis.peakSeconds);
  const quieter = leadInBars(grid, peakBar, LEAD_IN_LOUDNESS_SHARE);
  const found: LeadIns = { count: 0, cheapest: [], quietest: [], looped: [] };
  leadIns(grid, hit, quieter, false, found);
  if (found.count === 0) leadIns(grid, hit, quieter, true, found);
  if (found.count > 0) return found;
  found.looped = loopedLeadIns(grid, hit, quieter);
  const anyButClimax = leadInBars(grid, peakBar, Infinity);
  leadIns(grid, hit, anyButClimax, true, found);
  if (found.count === 0) twoRunLeadIns(grid, hit, quieter, found);
  if (found.count === 0) twoRunLeadIns(grid, hit, anyButClimax, found);
  // With nothing else, the looped lead-ins are all there is.
  if (found.count === 0) for (const leadIn of found.looped) if (wouldKeep(found, leadIn.cost, leadIn.before)) keep(found, leadIn);
  return found;
}
