// The search for an edit with a hit point around one anchor (the track's peak, or another
// entrance): a lead-in (lead-in.ts) and an ending on a beat (after-peak.ts) paired cheapest first,
// the first whose clip keeps its own peak at H by a sure margin (peak-landing.ts) taken; when
// none of the first few does, a wider search of more pairs judged on the source's own beats.
import type { Analysis } from '../analysis/analyse.ts';
import type { BarGrid } from './bar-grid.ts';
import type { Landing, Run } from './plan.ts';
import { clipsKeepTrackTempo, landsAtOtherPhases, sourceBeatLanding, trackedLanding } from './peak-landing.ts';
import { type Choice, WIDE_PER_SIDE, cheapest, endsInPeakWindow } from './edit-choice.ts';
import { type LeadIn, type LeadInRuns, type LeadIns, breathLeadIns, keptLeadIns, leadInCandidates } from './lead-in.ts';
import { type AfterPeak, type EndingKinds, cutEndingKinds, endingKinds } from './after-peak.ts';

/** Candidate plans whose clip is analysed for its peak (about 1 ms each) before the cheapest is taken as it is. */
const MAX_PEAK_CHECKS = 8;

/** Candidate plans checked with each next kind of ending when none with a preferred kind keeps the peak at H. */
const FALLBACK_PEAK_CHECKS = 4;
/** Candidate plans with the quietest run-up to H checked when none of the cheapest keeps the peak at H. */
const QUIET_PEAK_CHECKS = 4;
/**
 * Candidate plans (lead-in and ending pairs, cheapest first) with a looped lead-in (lead-in.ts
 * loopedLeadIns), when there are any, checked when neither the first checks nor the wide search
 * lands (a plan that lands without looping bars is kept as it was): each is beat-tracked, as
 * their clips, mostly the intro looped, are often heard at another tempo than the track's, so
 * the source's beats say nothing of where their peak falls.
 */
const LOOPED_PEAK_CHECKS = 4;
/**
 * Candidate plans with a breath before the climax (lead-in.ts breathLeadIns) checked after the
 * quietest when H leaves the clip less than the peak rule's window after it: the clip ends before
 * its climax has been heard for long, so what plays before H must rise into it.
 */
const BREATH_PEAK_CHECKS = 4;
/** Candidate plans checked in all (about 0.4 ms each, 1.4 ms when they land): a bound on a plan's time. */
const MAX_CHECKS = 24;

/** Every lead-in with every ending, cheapest first. */
function pairs(befores: LeadInRuns[], afters: AfterPeak[]): Choice[] {
  const choices = befores.flatMap((before) => afters.map((after) => {
    const peakRun = { sourceStart: before.peakRunStart, length: after.peakRunEnd - before.peakRunStart };
    return { cost: before.cost + after.cost, runs: [...before.runs, peakRun, ...after.runs], ending: after.ending };
  }));
  return choices.sort((a, b) => a.cost - b.cost);
}

/** A plan with a hit point, and where its clip's own peak falls (peak-landing.ts). */
export interface Anchored {
  choice: Choice;
  landing: Landing;
  peakSeconds: number;
  /** Where the check hears the clip's peak (clip seconds), when it worked that out for a landing. */
  heardSeconds?: number;
  /** A thin landing that still lands at the other onset phases (peak-landing.ts landsAtOtherPhases). */
  steady?: boolean;
}

/** A candidate plan and its place in the order of preference. */
interface Ranked {
  choice: Choice;
  rank: number;
}

/** A candidate plan whose clip lands its peak at H thinly, the peak rule's margin there, and where it hears its peak (TrackedLanding). */
type Thin = Ranked & { margin: number; seconds: number };

/** Thin landings in order of how likely they hold: a wider margin, or as wide and preferred. */
function byHold(a: Thin, b: Thin): number {
  return b.margin - a.margin || a.rank - b.rank;
}

/**
 * Thin landings checked at other onset phases (landsAtOtherPhases, ~2 ms each), widest first: a
 * bound on the time a plan with many thin landings spends (most have one or two).
 */
const STEADY_THIN_CHECKS = 3;

/**
 * Of thin landings, the widest that still lands at the other onset phases (landsAtOtherPhases),
 * among the STEADY_THIN_CHECKS widest, as a steady landing; else the widest.
 */
function steadiestThin(analysis: Analysis, thins: Thin[], hit: number): Landed | undefined {
  thins.sort(byHold);
  const steady = thins.slice(0, STEADY_THIN_CHECKS).find((thin) => landsAtOtherPhases(analysis, thin.choice.runs, hit));
  const thin = steady ?? thins[0];
  return thin && { choice: thin.choice, landing: 'thin', heardSeconds: thin.seconds, steady: steady !== undefined };
}

/** A plan that lands the peak at H, how surely, and where its clip hears the peak (clip seconds). */
interface Landed {
  choice: Choice;
  landing: 'sure' | 'thin';
  heardSeconds: number;
  /** A thin landing that still lands at the other onset phases (landsAtOtherPhases). */
  steady?: boolean;
}

/** Assurance (how likely a landing holds once encoded) of a miss, a thin landing, a steady thin one and a sure one. */
const MISSED = 0;
const THIN = 1;
export const STEADY = 2;
const SURE = 3;

/**
 * How likely a landing holds once encoded: sure, then a steady thin one, then any other thin one,
 * then a miss. Tuned and third sets (seed 4242): a thin landing that lands at both other onset
 * phases held 113 of 116 times, one that does not 46 of 55.
 */
export function assurance(landed: Pick<Anchored, 'landing' | 'steady'> | undefined): number {
  if (!landed || landed.landing === 'miss') return MISSED;
  return landed.landing === 'sure' ? SURE : landed.steady ? STEADY : THIN;
}

/** The landing likelier to hold (`a` when as likely). */
export function surer<T extends Pick<Anchored, 'landing' | 'steady'>>(a: T, b: T | undefined): T;
export function surer<T extends Pick<Anchored, 'landing' | 'steady'>>(a: T | undefined, b: T | undefined): T | undefined;
export function surer<T extends Pick<Anchored, 'landing' | 'steady'>>(a: T | undefined, b: T | undefined): T | undefined {
  return assurance(b) > assurance(a) ? b : a;
}

/** Tail keys hold times in these units of a second: a run's end worked out two ways differs in its last bits. */
const TAIL_KEY_UNITS = 1000;

/**
 * What a plan plays from H to its end, as a string: the source time where the run playing H
 * stops, then each later run (to the millisecond). Plans that differ only before the peak share it.
 */
export function tailKey(runs: Run[], hit: number): string {
  const ms = (seconds: number) => Math.round(seconds * TAIL_KEY_UNITS);
  let clipStart = 0;
  let r = 0;
  while (r < runs.length - 1 && clipStart + runs[r].length <= hit) clipStart += runs[r++].length;
  return [ms(runs[r].sourceStart + runs[r].length), ...runs.slice(r + 1).map((run) => `${ms(run.sourceStart)}+${ms(run.length)}`)].join(' ');
}

/**
 * Of candidate plans in order of preference, the first whose clip surely lands its peak at H,
 * else of those tracked that land thinly, the widest steady one among the STEADY_THIN_CHECKS
 * whose peak rule won by the widest margin, else the widest (steadiestThin; the first in order
 * among equals): a thinner win flips more easily in the encoded clip (held out,
 * seeds 9001 and 31337: 607 -> 609 of 648 land, 6 gained and 4 lost; seed 4242 302 -> 303; the
 * tuned set unchanged); undefined when none lands. Each is judged on
 * the source's own beats as it plays them first (microseconds; a miss there is final) and
 * beat-tracked (~1 ms) only if it lands there: those that land surely on the source beats are
 * tracked first, those that land only thinly after them. Of 22 thin on the source beats on the
 * demo songs, 3 landed surely once tracked; tracked in order, a plan with a thin landing already
 * found tracked up to 6 of them before reaching its sure one. On the source's beats a plan is
 * judged at `sourceBeatHit`: H, or for an anchor off the source's beats, where its nearest source
 * beat plays. At most `maxTracked` are beat-tracked; with `screen` false none is judged on the
 * source's beats first (each is tracked).
 *
 * A plan that plays the same from H on as one that missed once tracked (tailKey) is tracked after
 * the others: the clip's beats near its end set their phase at the peak too, and plans that only
 * change the lead-in mostly miss alike (a demo song's nine cheapest plans into one ending all
 * heard the peak 0.4 s early; the tenth, into another ending, landed).
 */
function firstLanding(analysis: Analysis, candidates: Iterable<Choice>, hit: number, sourceBeatHit: number, { maxTracked = Infinity, screen = true } = {}): Landed | undefined {
  const thinOnSourceBeats: Ranked[] = [];
  const afterMissedTails: Ranked[] = [];
  const missedTails = new Set<string>();
  const thins: Thin[] = [];
  let tracked = 0;
  const tailMissed = (choice: Choice) => missedTails.size > 0 && missedTails.has(tailKey(choice.runs, hit));
  /** The plan as a sure landing, once tracked; undefined when it is not one (a thin one is kept for steadiestThin). */
  const sureLanding = ({ choice, rank }: Ranked): Landed | undefined => {
    if (++tracked > maxTracked) return undefined;
    const { landing, margin, seconds } = trackedLanding(analysis, choice.runs, hit);
    if (landing === 'miss') missedTails.add(tailKey(choice.runs, hit));
    if (landing === 'thin') thins.push({ choice, rank, margin, seconds });
    return landing === 'sure' ? { choice, landing, heardSeconds: seconds } : undefined;
  };
  // Where clips are heard at another tempo than the track's, the source's beats say nothing: each is tracked.
  const screened = screen && clipsKeepTrackTempo(analysis);
  let rank = 0;
  let sure: Landed | undefined;
  for (const choice of candidates) {
    if (tracked >= maxTracked) break;
    const onSourceBeats = screened ? sourceBeatLanding(analysis, choice.runs, sourceBeatHit) : 'sure';
    const ranked = { choice, rank: rank++ };
    if (onSourceBeats === 'thin') thinOnSourceBeats.push(ranked);
    else if (onSourceBeats === 'sure' && tailMissed(choice)) afterMissedTails.push(ranked);
    else if (onSourceBeats === 'sure' && (sure = sureLanding(ranked))) return sure;
  }
  for (const ranked of thinOnSourceBeats) {
    if (tailMissed(ranked.choice)) afterMissedTails.push(ranked);
    else if ((sure = sureLanding(ranked))) return sure;
  }
  for (const ranked of afterMissedTails) {
    if ((sure = sureLanding(ranked))) return sure;
  }
  return steadiestThin(analysis, thins, hit);
}

/** How anchoredEdit searches: its budget of checks, source times its plans must not play (two ways), where they land on the source's beats. */
export interface AnchoredOptions {
  maxChecks?: number;
  avoid?: number[];
  /**
   * Source times its plans are made without: the lead-ins and endings paired are those that play
   * none of them (candidateSides), not the cheapest with those passed over as they are checked.
   */
  without?: number[];
  /** Where a plan that lands puts the peak on the source's own beats: H, unless the anchor is off them (heardAnchor). */
  sourceBeatHit?: number;
  /** Plans only with endings cut mid-beat (after-peak.ts cutEndingKinds): the last resort of an edit that lands nowhere. */
  cutEndings?: boolean;
}

/**
 * A lead-in and ending whose clip, analysed on its own, surely has its peak at H (within 25 ms,
 * by a sure margin over any other entrance: peak-landing.ts), the first found by firstLanding
 * among: the cheapest few with the most preferred ending, those with the quietest run-up to H,
 * those with a breath before the climax when H comes late (BREATH_PEAK_CHECKS), then a few of
 * each next kind of ending in turn (H is what the caller asked for; an ending on a bar line is
 * still on a beat: a late H followed by the track's decay leaves the clip's climax too short to
 * be its peak). When none lands surely, the thin landing firstLanding prefers (steady, then by
 * the widest margin); when none does, what a wider search finds (wideLanding), then the first
 * looped lead-in that lands (LOOPED_PEAK_CHECKS); else the cheapest with the preferred ending.
 * Undefined when the peak leaves no lead-in or no ending at all. Plans that play any of the source
 * times `avoid` are not checked (another anchor's plans that replay the track's own, bigger,
 * peak); plans `without` some (an entrance a missed plan's clip heard as its peak) pair only the
 * lead-ins and endings that do not play them (candidateSides).
 */
export function anchoredEdit(grid: BarGrid, duration: number, hit: number, options: AnchoredOptions = {}): Anchored | undefined {
  const { maxChecks = MAX_CHECKS, without, sourceBeatHit = hit } = options;
  const avoid = without ? [...(options.avoid ?? []), ...without] : options.avoid;
  const { leadIns, endings } = candidateSides(grid, duration, hit, without, options.cutEndings);
  const { cheapest: befores, quietest, looped } = keptLeadIns(leadIns);
  const firstKind = endings(0);
  if (befores.length === 0 || !firstKind) return undefined;
  const preferred = cheapest(firstKind);
  const choices = pairs(befores, preferred);
  const checkedKeys = new Set<string>();
  // An ending kind with joins relaxed to the track's most abrupt bar line holds the strict kind's plans again: each is checked once.
  const lateBreaths = endsInPeakWindow(grid, duration - hit) ? breathLeadIns(grid, hit) : undefined;
  const candidates = unchecked(inOrder(choices, quietest, lateBreaths ?? [], preferred, endings, befores), avoid, checkedKeys, maxChecks);
  const peakSeconds = grid.analysis.peakSeconds;
  // The looped plans have keys of their own: when they are all the lead-ins there are, the first checks screened them already.
  const landed = firstLanding(grid.analysis, candidates, hit, sourceBeatHit)
    ?? wideLanding(grid, hit, { avoid, sourceBeatHit }, leadIns, endings, checkedKeys, lateBreaths)
    ?? (looped.length > 0 ? firstLanding(grid.analysis, unchecked(pairs(looped, preferred), avoid, new Set(), LOOPED_PEAK_CHECKS), hit, sourceBeatHit, { screen: false }) : undefined);
  // Fields by name, not a spread with peakSeconds added: see peakOn (peak-landing.ts).
  return landed ? { choice: landed.choice, landing: landed.landing, peakSeconds, heardSeconds: landed.heardSeconds, steady: landed.steady } : { choice: choices[0], landing: 'miss', peakSeconds };
}

/** Whether any of the source times `times` plays in `runs`. */
function playsAny(times: number[], runs: Run[]): boolean {
  return times.some((t) => runs.some((run) => t >= run.sourceStart && t < run.sourceStart + run.length));
}

/**
 * Each kind of ending without those that play any of `avoid` (their runs, or the run on from the
 * peak at `peak`), each kind filtered once: a search asks for the same kind several times.
 */
function avoidingEndings(endings: EndingKinds, peak: number, avoid: number[]): EndingKinds {
  const kinds: (AfterPeak[] | undefined)[] = [];
  return (index) => {
    if (!(index in kinds)) kinds[index] = endings(index)?.filter((after) => !playsAny(avoid, [{ sourceStart: peak, length: after.peakRunEnd - peak }, ...after.runs]));
    return kinds[index];
  };
}

/**
 * The lead-ins and endings an anchor's plans are made of: those that play none of `avoid`, when
 * some of each are left (the cheapest that do not are then checked, not passed over among the
 * cheapest that do); else all of them (the plans that play them are then passed over as they are
 * checked).
 */
function candidateSides(grid: BarGrid, duration: number, hit: number, avoid: number[] | undefined, cutEndings = false): { leadIns: LeadIns; endings: EndingKinds } {
  const leadIns = leadInCandidates(grid, hit);
  const endings = (cutEndings ? cutEndingKinds : endingKinds)(grid, duration - hit);
  if (!avoid?.length) return { leadIns, endings };
  const peak = grid.analysis.peakSeconds;
  const keeps = (leadIn: LeadInRuns) => !playsAny(avoid, [...leadIn.runs, { sourceStart: leadIn.peakRunStart, length: peak - leadIn.peakRunStart }]);
  const avoidingLeadIns = { count: leadIns.count, cheapest: leadIns.cheapest.filter(keeps), quietest: leadIns.quietest.filter(keeps), looped: leadIns.looped.filter(keeps) };
  const avoiding = avoidingEndings(endings, peak, avoid);
  const first = avoiding(0);
  return avoidingLeadIns.cheapest.length > 0 && first && first.length > 0 ? { leadIns: avoidingLeadIns, endings: avoiding } : { leadIns, endings };
}

/*
 * The candidate generators below take what they walk as arguments; none is a closure made per
 * plan. In Node 20 (V8 11.3) a generator closure made per call kept what it closed over alive past
 * young collections until a full one: ~1.3 MB of candidate lists copied and promoted at each young
 * collection (2.5 ms, one every ~60 plans), against ~20 KB and 0.5 ms as plain generators.
 */

/** The first checks' candidates in order of preference (anchoredEdit), each kind of ending worked out only when reached. */
function* inOrder(choices: Choice[], quietest: LeadIn[], breaths: LeadInRuns[], preferred: AfterPeak[], endings: EndingKinds, befores: LeadIn[]): Generator<Choice> {
  yield* choices.slice(0, MAX_PEAK_CHECKS);
  yield* pairs(quietest, preferred).slice(0, QUIET_PEAK_CHECKS);
  yield* pairs(breaths, preferred).slice(0, BREATH_PEAK_CHECKS);
  for (let k = 1, kind; (kind = endings(k)); k++) yield* pairs(befores, cheapest(kind)).slice(0, FALLBACK_PEAK_CHECKS);
}

/** The wide search's candidates: each kind of ending in order of preference, its pairs cheapest first. */
export function* widePairs(befores: LeadInRuns[], endings: EndingKinds): Generator<Choice> {
  for (let k = 0, kind; (kind = endings(k)); k++) yield* pairs(befores, cheapest(kind, WIDE_PER_SIDE));
}

/** Of `choices`, those playing none of the source times `avoid` nor in `checkedKeys` (each is added as it is taken), at most `budget`. */
export function* unchecked(choices: Iterable<Choice>, avoid: number[] | undefined, checkedKeys: Set<string>, budget: number): Generator<Choice> {
  let taken = 0;
  for (const choice of choices) {
    if (avoid && playsAny(avoid, choice.runs)) continue;
    const key = planKey(choice);
    if (checkedKeys.has(key)) continue;
    if (++taken > budget) return;
    checkedKeys.add(key);
    yield choice;
  }
}

/** A plan's runs as a string: the same plan reached twice is checked once. */
function planKey(choice: Choice): string {
  return choice.runs.map((run) => `${run.sourceStart}+${run.length}`).join(' ');
}

/** Plans the wide search screens on the source's own beats (~20 us each on a 60 s edit), cheapest first. */
const WIDE_SCREENS = 64;
/**
 * Plans the wide search beat-tracks (~1.4 ms each on a 60 s edit): those that land on the
 * source's beats. Of 41 held-out edits that missed (`EDITS_ALL_SEED=9001 npm run bench --
 * edits-all`), 12 landed with 64 screens and 3 tracked, 13 with 128 and 6, 16 with 400 and 16;
 * the plan bench's own requests (1.5% of them search wide) took p99 ~7, ~12 and more ms in-process
 * against ~5 without (.scratch/benchplans.mts).
 */
const WIDE_TRACKED = 3;

/**
 * When none of the first checks lands: more lead-ins and endings, each kind of ending in order of
 * preference and its pairs cheapest first, screened on the source's own beats as they play (a miss
 * there is final, and costs microseconds), the few that land there beat-tracked. The first checks
 * count every plan they try against one budget, so a track whose cheapest plans all replay a
 * louder passage before H ran out of checks on plans that were never going to land. A plan in
 * `checkedKeys` (planKey: the first checks', and each one it screens) is not screened again.
 */
function wideLanding(grid: BarGrid, hit: number, { avoid, sourceBeatHit = hit }: AnchoredOptions, leadIns: LeadIns, endings: EndingKinds, checkedKeys: Set<string>, breaths = breathLeadIns(grid, hit)): Landed | undefined {
  // Lead-ins that take a breath before the climax (made for the first checks when H comes late) join the cheapest here, within the search's budget.
  const candidates = unchecked(widePairs([...leadIns.cheapest, ...breaths], endings), avoid, checkedKeys, WIDE_SCREENS);
  return firstLanding(grid.analysis, candidates, hit, sourceBeatHit, { maxTracked: WIDE_TRACKED });
}
