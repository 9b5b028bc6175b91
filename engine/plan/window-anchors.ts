// The deepest search of an edit with a hit point, for an edit that no plan lands (on the track's
// peak, its other entrances, the anchors its missed clips heard, cut or moved): every beat of the
// track as the source time played at H. A plain window of D seconds that plays beat b at H is
// screened on the source's own beats (~30 us each warm: 300-500 windows of a 4-minute track, ~13
// ms); the beats whose window lands there are where a clip can hear its climax at H, whatever the
// track's own analysis named its peak. Those become anchors for the ordinary search (lead-ins and
// endings on beats), and as the very last resort the windows themselves are beat-tracked and the
// first that lands is taken as it is (its start and end off the beat). Third held-out set (seed
// 4242): 362 -> 366 of 380 land, none lost, on a beat or the track's end 376 -> 375 (the one
// window taken); fourth 43 -> 44 of 44; the tuned, held-out, second and late draws unchanged. Run
// also on the edits that land thinly, it landed one more and cut three more endings: it is not.
// On a track whose clips are heard at another tempo than its own, the windows are screened on
// the track's onsets beat-tracked at the clips' tempo instead: third set 366 -> 367 (a window,
// cut), the tuned and late draws unchanged.
import { type BarGrid, barAt, barLevelAt, sameBar } from './bar-grid.ts';
import type { Landing, Run } from './plan.ts';
import type { Analysis } from '../analysis/analyse.ts';
import { beatFrames } from '../analysis/beats.ts';
import { frameSeconds } from '../analysis/frames.ts';
import { clipPeriodFrames, clipsKeepTrackTempo, sourceBeatLanding, trackedLanding } from './peak-landing.ts';
import { type Anchored, anchoredEdit, surer } from './anchored-edit.ts';
import { anchoredAt } from './anchor-with-room.ts';

/** A beat whose plain window lands on the source's beats, and how (sure or thin there). */
export interface WindowAnchor {
  seconds: number;
  landing: Exclude<Landing, 'miss'>;
}

/** The plain window of `duration` seconds that plays source time `anchor` at `hit`. */
export function windowRuns(anchor: number, duration: number, hit: number): Run[] {
  return [{ sourceStart: anchor - hit, length: duration }];
}

// Keyed by the onset envelope, as clipPeriodFrames: another anchor's analysis is a copy sharing it.
const clipBeats = new WeakMap<Float32Array, Float32Array>();

/**
 * The track with the beats its clips are heard on: its own, or where its clips are heard at
 * another tempo (clipsKeepTrackTempo), its onsets beat-tracked at the clips' period
 * (clipPeriodFrames; ~5 ms warm for a 4-minute track, once, for an edit nothing else landed),
 * and the clips' tempo with them: the screen adds the beat a clip's tracking hears at its end a
 * beat period after its last (peak-landing.ts runBeats), and that is the clips' period, not the
 * misread track's (a 0.33 s beat where the clips' is 0.5 s put a beat after a peak the clip
 * ends on, and the screen landed windows heard 2 s off H).
 */
function withClipBeats(analysis: Analysis): Analysis {
  if (clipsKeepTrackTempo(analysis)) return analysis;
  const rate = analysis.frameRate;
  const periodFrames = clipPeriodFrames(analysis);
  let beatTimesSeconds = clipBeats.get(analysis.onset);
  if (!beatTimesSeconds) {
    beatTimesSeconds = Float32Array.from(beatFrames(analysis.onset, periodFrames), (f) => frameSeconds(f, rate));
    clipBeats.set(analysis.onset, beatTimesSeconds);
  }
  return { ...analysis, beatTimesSeconds, tempoBpm: (60 * rate) / periodFrames };
}

/**
 * The beats whose plain window (windowRuns) fits the track and lands on the beats its clips are
 * heard on (withClipBeats), sure ones first, each group loudest bar first (the climax a listener
 * would name is the louder), one per bar.
 */
export function windowAnchors(grid: BarGrid, duration: number, hit: number): WindowAnchor[] {
  const analysis = withClipBeats(grid.analysis);
  const found: WindowAnchor[] = [];
  for (const seconds of analysis.beatTimesSeconds) {
    if (seconds - hit < 0 || seconds - hit + duration > analysis.durationSeconds + 1e-9) continue;
    const landing = sourceBeatLanding(analysis, windowRuns(seconds, duration, hit), hit);
    if (landing !== 'miss') found.push({ seconds, landing });
  }
  const loudness = (anchor: WindowAnchor) => barLevelAt(grid, anchor.seconds);
  found.sort((a, b) => (a.landing === b.landing ? loudness(b) - loudness(a) : a.landing === 'sure' ? -1 : 1));
  const bars = new Set<number>();
  return found.filter((anchor) => {
    const bar = barAt(grid, anchor.seconds);
    if (bars.has(bar)) return false;
    bars.add(bar);
    return true;
  });
}

/** Window anchors searched as anchors at most (each ~5-15 ms with its wide search). */
const ANCHOR_SEARCHES = 4;
/** Plans checked per window anchor (as per heard anchor: edit-plan.ts HEARD_ANCHOR_CHECKS). */
const ANCHOR_CHECKS = 4;
/** Windows beat-tracked at most (~1 ms each): a third-set edit's landing window was its 10th. */
const WINDOW_CHECKS = 16;

/**
 * The first plan that surely lands on the anchors (at most ANCHOR_SEARCHES, none in the bar of
 * an anchor `tried`, source seconds), else the first steady thin landing (anchored-edit.ts
 * assurance), else the first thin one; undefined when none lands.
 */
function onWindowAnchors(grid: BarGrid, duration: number, hit: number, anchors: WindowAnchor[], tried: number[]): Anchored | undefined {
  const fresh = anchors.filter((anchor) => !tried.some((t) => sameBar(grid, t, anchor.seconds)));
  let thin: Anchored | undefined;
  for (const { seconds } of fresh.slice(0, ANCHOR_SEARCHES)) {
    const found = anchoredEdit({ ...grid, analysis: anchoredAt(grid.analysis, seconds) }, duration, hit, { maxChecks: ANCHOR_CHECKS });
    if (found?.landing === 'sure') return found;
    thin = surer(thin, found);
  }
  return thin;
}

/**
 * Of the anchors' plain windows (at most WINDOW_CHECKS), beat-tracked, the first whose clip surely
 * lands its peak at H, else the first that lands thinly: a clip cut from the track as it plays, its
 * start and end wherever the window falls ('cut', or the track's end when it reaches it).
 */
function onWindows(grid: BarGrid, duration: number, hit: number, anchors: WindowAnchor[]): Anchored | undefined {
  const { analysis } = grid;
  let thin: Anchored | undefined;
  for (const { seconds } of anchors.slice(0, WINDOW_CHECKS)) {
    const runs = windowRuns(seconds, duration, hit);
    const { landing, seconds: heardSeconds } = trackedLanding(anchoredAt(analysis, seconds), runs, hit);
    if (landing === 'miss') continue;
    const atTrackEnd = seconds - hit + duration >= analysis.durationSeconds - 1e-6;
    const found: Anchored = { choice: { cost: 0, runs, ending: atTrackEnd ? 'track_end' : 'cut' }, landing, peakSeconds: seconds, heardSeconds };
    if (landing === 'sure') return found;
    thin ??= found;
  }
  return thin;
}

/**
 * The window anchors' plans (their lead-ins and endings on beats): the first that surely lands,
 * else the first steady thin landing, else the first thin one (onWindowAnchors); undefined when
 * none lands.
 */
export function windowAnchorPlans(grid: BarGrid, duration: number, hit: number, tried: number[]): Anchored | undefined {
  return onWindowAnchors(grid, duration, hit, windowAnchors(grid, duration, hit), tried);
}

/**
 * The deepest search, for an edit no other plan lands: the window anchors' plans (their lead-ins
 * and endings on beats), then their plain windows; the first that surely lands, else the thin
 * landing onWindowAnchors prefers, else the first thin window; undefined when none lands.
 */
export function windowSearch(grid: BarGrid, duration: number, hit: number, tried: number[]): Anchored | undefined {
  const anchors = windowAnchors(grid, duration, hit);
  if (anchors.length === 0) return undefined;
  const planned = onWindowAnchors(grid, duration, hit, anchors, tried);
  if (planned?.landing === 'sure') return planned;
  const window = onWindows(grid, duration, hit, anchors);
  return window?.landing === 'sure' ? window : planned ?? window;
}
