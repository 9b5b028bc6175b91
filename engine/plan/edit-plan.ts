// Edit mode: exactly D seconds of the track's own bars. Without a hit point: the best start
// (section downbeat, track start, or a pickup from a quiet moment), the track's ending, and the
// join between them where two bars sound alike. With a hit point H: the peak lands at H (< 2.9 ms;
// up to 15 ms more where its clip would hear it a frame or more off H: centred-landing.ts), by the
// search around the track's peak (anchored-edit.ts), else around other entrances
// (anchor-with-room.ts), else where a missed plan's clip hears its peak, else around any beat whose
// plain window lands (window-anchors.ts).
import type { Analysis } from '../analysis/analyse.ts';
import { EngineError } from '../errors.ts';
import { type ClipPlan, type ClipRequest, planOf } from './plan.ts';
import { type BarGrid, barGrid, sameBar, seamCost } from './bar-grid.ts';
import { endChoice, startCost } from './edges.ts';
import { contentWorth } from './content.ts';
import { type HeardClip, LANDING_SECONDS, STEADINESS_SHIFTS, trackedPeakSeconds, withHeardClips } from './peak-landing.ts';
import { type Choice, JOIN_COST, MIN_PART_SECONDS } from './edit-choice.ts';
import { type Anchored, STEADY, anchoredEdit, assurance, surer } from './anchored-edit.ts';
import { anchoredAt, heardAnchor, heardSourceSeconds, otherAnchors } from './anchor-with-room.ts';
import { shiftedLanding } from './shifted-landing.ts';
import { centredLanding } from './centred-landing.ts';
import { windowAnchorPlans, windowSearch } from './window-anchors.ts';
import { onGridEnding } from './grid-ending.ts';
import { beatEndingForCut } from './cut-ending-repair.ts';

function better<T extends { cost: number }>(a: T | undefined, b: T): T {
  return !a || b.cost < a.cost ? b : a;
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

/**
 * Plans checked per other anchor: the cheapest few, so that a plan no anchor lands stays within
 * a few ms (8 each for 2 anchors: 121 -> 123 of 132 held-out edits land, over 4 each).
 */
const OTHER_ANCHOR_CHECKS = 8;

/**
 * Rounds of anchoring where the last plan's clip hears its peak (heardAnchor), at most: a clip's
 * peak moves with what plays around it, so a plan anchored where one clip heard its peak may hear
 * it elsewhere again. Held-out edits of recordings (`npm run bench -- edits-all`): 278 -> 296 of
 * 324 land, none lost; of those still missing after the first round, later ones landed a few
 * more (2 at the second, 2 at the fourth, on 40 such edits).
 */
const HEARD_ANCHOR_ROUNDS = 4;
/**
 * Plans checked per heard anchor (4 landed as many held-out edits as 8). With the rounds, a plan
 * that lands nowhere costs at most 5 tracked peaks and 16 checks more: about 20 ms on a 60 s edit;
 * with a wide search per anchor (64 screens, 3 tracked: ~7 ms each), at most about 70 ms.
 */
const HEARD_ANCHOR_CHECKS = 4;

/**
 * From a plan that lands nowhere (`best`), or whose clip a quarter hop off lands nowhere
 * (steadierThan), whose clip's own analysis puts its peak at `trackedPeak` (not at H): the edit
 * anchors where that clip hears its peak (heardAnchor; never an anchor in `tried`, source
 * seconds), then where that plan's clip hears its, until a plan lands, no new anchor is heard, or
 * HEARD_ANCHOR_ROUNDS are spent. The first that lands, else undefined.
 */
function followHeardAnchors(grid: BarGrid, duration: number, hit: number, best: Anchored, trackedPeak: number, tried: number[], cutEndings: boolean): Anchored | undefined {
  let from = best;
  let heardPeak: number | undefined = trackedPeak;
  for (let round = 0; heardPeak !== undefined; round++) {
    // Not checked at the other onset phases: not steady (steadierThan passes a thin plan as `best`).
    if (Math.abs(heardPeak - hit) <= LANDING_SECONDS) return { ...from, landing: 'thin', heardSeconds: heardPeak, steady: false };
    const heard = round < HEARD_ANCHOR_ROUNDS ? heardAnchor(grid, from.choice.runs, hit, heardPeak, tried) : undefined;
    if (!heard) break;
    tried.push(heard.analysis.peakSeconds);
    const found = anchoredEdit({ ...grid, analysis: heard.analysis }, duration, hit, { maxChecks: HEARD_ANCHOR_CHECKS, sourceBeatHit: heard.sourceBeatHit, cutEndings });
    if (!found) continue; // no plan on that anchor: the next round hears the same clip's other anchor, if any
    if (found.landing !== 'miss') return found;
    from = found;
    heardPeak = trackedPeakSeconds(grid.analysis, from.choice.runs, from.peakSeconds);
  }
  return undefined;
}

/**
 * Rounds of planning again on the same anchor without the entrance a missed plan's clip heard as
 * its peak, at most (each ~5-10 ms on a 60 s edit, only for plans that land nowhere else).
 */
const RIVAL_ROUNDS = 3;

/**
 * From a plan that lands nowhere (`best`, whose clip hears its peak at `trackedPeak`, or whose
 * clip does a quarter hop off: steadierThan; after followHeardAnchors): the same anchor again,
 * with plans that do not play the entrance its clip heard as its peak (a rise later in the run
 * through the climax that the clip, starting where it does, hears as bigger; anchored there, it
 * lacks the room before or after it), then without the one the next plan's clip hears, for
 * RIVAL_ROUNDS. Plans on another anchor avoid the track's own
 * peak too. The first that lands, else undefined. Held out (warzone2100-music and supertux-data,
 * 69 pieces, 4 edits each, seed 4242): 266 -> 268 of 276 land; the tuned recordings' draws unchanged.
 */
function withoutHeardRivals(grid: BarGrid, duration: number, hit: number, best: Anchored, trackedPeak: number, cutEndings: boolean): Anchored | undefined {
  const { analysis } = grid;
  const anchor = { ...grid, analysis: anchoredAt(analysis, best.peakSeconds) };
  const avoid = best.peakSeconds === analysis.peakSeconds ? undefined : [analysis.peakSeconds];
  const rivals: number[] = [];
  let from = best;
  let heardPeak: number | undefined = trackedPeak;
  for (let round = 0; round < RIVAL_ROUNDS; round++) {
    // `best`'s own peak was worked out and found off H by the caller; each later plan's is worked out here.
    if (round > 0) heardPeak = trackedPeakSeconds(analysis, from.choice.runs, from.peakSeconds);
    if (heardPeak === undefined) break;
    if (Math.abs(heardPeak - hit) <= LANDING_SECONDS) return { ...from, landing: 'thin', heardSeconds: heardPeak, steady: false };
    const rival = heardSourceSeconds(analysis, from.choice.runs, heardPeak);
    if (rival === undefined || [best.peakSeconds, ...(avoid ?? []), ...rivals].some((t) => sameBar(grid, t, rival))) break;
    rivals.push(rival);
    const found = anchoredEdit(anchor, duration, hit, { maxChecks: HEARD_ANCHOR_CHECKS, avoid, without: rivals, cutEndings });
    if (!found) break;
    if (found.landing !== 'miss') return found;
    from = found;
  }
  return undefined;
}

/**
 * A plan that lands nowhere by the checks it had (`best`): its clip is beat-tracked at the full
 * rate once, and if its peak is at H after all, it is taken (a miss on the source's beats or the
 * coarse beats that full tracking does not confirm: 20 of 1,500 plans of the demo songs, whose
 * designed climax then plays at H). Otherwise the anchors its clip hears (followHeardAnchors),
 * then its anchor without the entrances its clips hear instead (withoutHeardRivals), both from
 * that one tracked peak; the first that lands, else `best`.
 */
function afterMiss(grid: BarGrid, duration: number, hit: number, best: Anchored, tried: number[], cutEndings = false): Anchored {
  const trackedPeak = trackedPeakSeconds(grid.analysis, best.choice.runs, best.peakSeconds);
  if (trackedPeak === undefined) return best;
  if (Math.abs(trackedPeak - hit) <= LANDING_SECONDS) return { ...best, landing: 'thin', heardSeconds: trackedPeak };
  return followHeardAnchors(grid, duration, hit, best, trackedPeak, tried, cutEndings) ?? withoutHeardRivals(grid, duration, hit, best, trackedPeak, cutEndings) ?? best;
}

/**
 * For a thin landing that is not steady (`thin`): the window anchors' plans, then the searches a
 * miss makes (followHeardAnchors, then withoutHeardRivals) from where its clip hears the peak when
 * its parts play a quarter hop earlier or later (peak-landing.ts STEADINESS_SHIFTS); the first
 * steady or sure landing they find, else `thin`.
 */
function steadierThan(grid: BarGrid, duration: number, hit: number, thin: Anchored, tried: number[]): Anchored {
  let best = surer(thin, windowAnchorPlans(grid, duration, hit, tried));
  for (const shift of STEADINESS_SHIFTS) {
    if (assurance(best) >= STEADY) return best;
    const heard = trackedPeakSeconds(grid.analysis, thin.choice.runs, thin.peakSeconds, shift);
    if (heard === undefined || Math.abs(heard - hit) <= LANDING_SECONDS) continue;
    // `tried` is shared: the anchors one shift's clip heard are not planned again for the other.
    // The heard rivals only when no heard anchor lands at all, as after a miss (afterMiss).
    best = surer(best, followHeardAnchors(grid, duration, hit, thin, heard, tried, false) ?? withoutHeardRivals(grid, duration, hit, thin, heard, false));
  }
  return best;
}

/**
 * The track's peak, then other entrances in turn (anchor-with-room.ts): the first plan that surely
 * lands, else the first steady thin landing (anchored-edit.ts assurance), else the first that
 * lands (the track's own peak's thin landing first), else the plan on the track's peak that
 * missed (on another anchor when that one could not be planned at all); and
 * the other anchors tried (none when the track's peak surely lands; `known` when already worked
 * out). With `cutEndings`, plans only with the ending cut mid-beat (after-peak.ts cutEndingKinds).
 */
function onAnchors(grid: BarGrid, duration: number, hit: number, cutEndings = false, known?: Analysis[]): { best: Anchored | undefined; others: Analysis[] } {
  const { analysis } = grid;
  const own = anchoredEdit(grid, duration, hit, { cutEndings });
  // The other anchors are worked out only when the track's own peak does not surely land.
  if (own && own.landing === 'sure') return { best: own, others: [] };
  const others = known ?? otherAnchors(grid, hit, duration - hit);
  let best = own;
  for (const other of others) {
    // The bar grid does not depend on the peak: the other anchor shares it.
    // Plans that play the track's own peak too are passed over: it is the bigger entrance.
    const found = anchoredEdit({ ...grid, analysis: other }, duration, hit, { maxChecks: OTHER_ANCHOR_CHECKS, avoid: [analysis.peakSeconds], cutEndings });
    if (found?.landing === 'sure') return { best: found, others };
    // A thin landing elsewhere replaces a miss, and a steady one an unsteady one (assurance).
    if (found && (!best || assurance(found) > assurance(best))) best = found;
  }
  return { best, others };
}

/** The missed plan moved until its clip hears its peak at H (shifted-landing.ts), else as it is. */
function shiftedMiss(analysis: Analysis, hit: number, missed: Anchored): Anchored {
  const heardPeak = trackedPeakSeconds(analysis, missed.choice.runs, missed.peakSeconds);
  return (heardPeak !== undefined && shiftedLanding(analysis, hit, missed, heardPeak)) || missed;
}

/**
 * An edit with a hit point: the first plan that lands on the track's peak or another entrance
 * (onAnchors). A thin landing on the track's peak tries the other anchors for a sure one: held
 * out (seeds 9001 and 31337), thin landings missed about 1 in 10 and sure ones 1 in 36, and 4 of
 * 48 misses landed surely on another entrance (none lost). It is rare (26 of 3,000 plans of the
 * download bench's demo songs): the plan's p99 in process did not move beyond the machine's noise
 * (3.0-4.2 ms against 3.2-4.3 ms, 3 runs of each alternated). When none lands, where the missed
 * plan's clip hears its peak, then its anchor again without the entrances its clips hear instead
 * (afterMiss). Then, as a last resort, all of that again with the clip cut mid-beat after the
 * climax (the run through the peak on to the clip's end): the clip ends off a beat, but its
 * climax plays at H; and that plan's own lead-in and climax with an ending on a beat instead, when
 * one lands as surely (cut-ending-repair.ts). Then the plan that missed, its content moved by what
 * its clip's peak misses H by (shifted-landing.ts). Then, the deepest search: every beat of the track whose plain window
 * plays it at H and lands, as an anchor, then as that window itself (window-anchors.ts). Else
 * the plan that missed. A plan that lands, but is heard more than a frame off H, is moved a few
 * milliseconds towards it (centred-landing.ts).
 *
 * A thin landing that is not steady (it misses when its parts play a quarter hop earlier or
 * later: peak-landing.ts landsAtOtherPhases) is searched past for a steady or sure one first
 * (steadierThan; how much likelier a steady one holds: anchored-edit.ts assurance). With it
 * (`edits-all`'s draws): third set 365 -> 368 of 380 land, tuned 321 -> 322 and seed 9001
 * 319 -> 321 of 324, the other sets as they were, none lost. Recordings' plans that end thin
 * search more: third set in process (medians of 3 runs alternated), mean 5.6 -> 7.0 ms, p95
 * 19 -> 25 ms, p50 2.8 -> 3.0 ms; the demo songs' plans are all sure, unchanged.
 */
function hitEdit(analysis: Analysis, duration: number, hit: number): Anchored {
  const grid = barGrid(analysis);
  let { best, others } = onAnchors(grid, duration, hit);
  // afterMiss adds the anchors it hears to the list it is given: each pass starts from the anchors tried.
  const tried = () => [analysis.peakSeconds, ...others.map((other) => other.peakSeconds)];
  if (best?.landing === 'thin' && !best.steady) best = steadierThan(grid, duration, hit, best, tried());
  if (best?.landing === 'miss') best = afterMiss(grid, duration, hit, best, tried());
  if (best?.landing === 'miss') {
    const cut = onAnchors(grid, duration, hit, true, others).best;
    const landed = cut?.landing === 'miss' ? afterMiss(grid, duration, hit, cut, tried(), true) : cut;
    if (landed && landed.landing !== 'miss') best = (landed.choice.ending === 'cut' && beatEndingForCut(grid, duration, hit, landed)) || landed;
  }
  if (best?.landing === 'miss') best = shiftedMiss(analysis, hit, best);
  // No plan at all (no lead-in or ending around any anchor) is a miss too: a window may still land.
  if (!best || best.landing === 'miss') best = windowSearch(grid, duration, hit, tried()) ?? best;
  if (best && best.landing !== 'miss') return centredLanding(analysis, hit, best);
  if (best) return best;
  throw new EngineError('hit_point_unreachable', `hit_point_seconds ${hit} cannot be met in an edit of ${duration} s of this track: it has too little material before or after its peak at ${analysis.peakSeconds.toFixed(2)} s`, {
    min: 0,
    max: duration,
    peak_seconds: Math.round(analysis.peakSeconds * 100) / 100,
  });
}

/**
 * hitEdit, and where its plan lands but ends off the beat grid, the plan on the grid's bars if
 * that lands as surely (grid-ending.ts). A plan that lands nowhere is not planned again: its
 * searches are the slowest there are (up to ~70 ms on a 60 s edit), and its ending is not its fault.
 */
function hitEditOnGrid(analysis: Analysis, duration: number, hit: number): Anchored {
  const planned = hitEdit(analysis, duration, hit);
  if (planned.landing === 'miss') return planned;
  const onGridBars = (variant: Analysis) => {
    try {
      return hitEdit(variant, duration, hit);
    } catch (err) {
      if (err instanceof EngineError && err.code === 'hit_point_unreachable') return undefined; // none on those bars: the one made stands
      throw err;
    }
  };
  return onGridEnding(analysis, planned, (plan) => plan.choice, onGridBars, (other, first) => assurance(other) >= assurance(first));
}

/**
 * freeEdit's choice, or its D seconds from the start; and where that ends off the beat grid,
 * freeEdit's on the grid's bars, whatever its cost: the best start and seams those bars allow,
 * and an ending on the beat, which every edit should have (a cut off the beat is heard).
 */
function freeEditOnGrid(analysis: Analysis, duration: number): Choice {
  const plain = (variant: Analysis): Choice => {
    const grid = barGrid(variant);
    return freeEdit(grid, duration) ?? { cost: 0, runs: [{ sourceStart: 0, length: duration }], ending: endChoice(grid, duration).ending };
  };
  return onGridEnding(analysis, plain(analysis), (choice) => choice, plain, () => true);
}

/** The edit's plan; with `heard`, the clips of plans already made and heard off H are known as misses (peak-landing.ts withHeardClips). */
export function editPlan(analysis: Analysis, request: ClipRequest, heard: readonly HeardClip[] = []): ClipPlan {
  const duration = request.durationSeconds;
  const hit = request.hitPointSeconds;
  if (hit !== undefined) {
    const { choice, peakSeconds, landing } = withHeardClips(heard, () => hitEditOnGrid(analysis, duration, hit));
    return planOf(request, choice.runs, peakSeconds, choice.ending, landing);
  }
  const choice = freeEditOnGrid(analysis, duration);
  return planOf(request, choice.runs, analysis.peakSeconds, choice.ending);
}
