// A clip plan: which stretches of the source play at which clip times. Every clip (segment, edit,
// loop) is made from its plan, and the plan is what X-Clip-Plan and POST /clip-plan show.
import { alignToFrames } from './frame-align.ts';
import { type PlanGrid, beatsInClip } from './grid.ts';

export const CLIP_MODES = ['segment', 'edit', 'loop'] as const;
export type ClipMode = (typeof CLIP_MODES)[number];
/** How a clip ends: in the track's own decaying ending, on a bar line, on a beat, or on none (a cut). */
export type Ending = 'track_end' | 'bar_line' | 'beat' | 'cut';
/** Where the track's peak plays in an edit with a hit point: within LANDING_SECONDS of H, or not. */
export type Landing = 'sure' | 'miss';
/** What an edit placed at H: the track's peak, or another entrance where the peak cannot be placed there. */
export type HitAnchor = 'peak' | 'entrance';

/** The most a clip may be sped up or slowed down as a whole (1%: 17 cents of pitch). */
export const MAX_STRETCH = 0.01;

/** The track's peak lands at H when it plays within this many seconds of it. */
export const LANDING_SECONDS = 0.025;

export const PLAN_SAMPLE_RATE = 44100;
/** Equal-power crossfade across each join of an edit or loop (the limit is 30 ms). */
export const SEAM_CROSSFADE_MS = 20;
const JOIN_LEAD_SECONDS = SEAM_CROSSFADE_MS / 2 / 1000;

export interface ClipRequest {
  mode: ClipMode;
  durationSeconds: number;
  hitPointSeconds?: number;
}

/** One stretch of source audio, in samples at PLAN_SAMPLE_RATE. */
export interface PlanPart {
  clipStart: number;
  sourceStart: number;
  length: number;
  /** Crossfade with what plays before this part (the previous part, or for a loop the wrap), centred on clipStart. */
  crossfadeMs: number;
}

export interface ClipPlan {
  mode: ClipMode;
  durationSeconds: number;
  /** Samples of the clip as sent. */
  samples: number;
  /**
   * Clip seconds per source second: 1, or a uniform varispeed of at most MAX_STRETCH either way
   * that makes a loop a whole number of beats or lets an edit end on a beat. The parts are laid on
   * the source's own timeline (`timelineSamples` long), which the clip plays `stretch` times as long.
   */
  stretch: number;
  timelineSamples: number;
  /** In samples of the source's timeline (see `stretch`). */
  parts: PlanPart[];
  hitPointSeconds: number | null;
  /** Where the track's peak plays in the clip (its first appearance), or null when it is not in it. */
  peakInClipSeconds: number | null;
  ending: Ending;
  /** An edit with a hit point: whether the track's peak plays within LANDING_SECONDS of H; null for any other plan. */
  hitPointLanding: Landing | null;
  /** An edit with a hit point: what was placed at H; null for any other plan. */
  hitPointAnchor: HitAnchor | null;
  /** The runs the parts were placed from (seconds), before the parts' joins moved onto the MP3 frame grid. */
  runs: Run[];
  /** The beats and the downbeats the clip plays, in clip seconds (3 decimals), for cutting picture to the music. */
  beats: number[];
  downbeats: number[];
}

/** A part as the builders make it, in seconds of source and of clip. */
export interface Run {
  sourceStart: number;
  length: number;
}

function rounded(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/**
 * The runs laid end to end, in whole samples: each run's clip start is rounded once, so the
 * lengths add up to exactly the clip's samples and no run drifts against its source. The part
 * that plays `anchorSeconds` of the source (with a hit point, what plays at H) keeps its place;
 * the others move onto its MP3 frame phase (alignToFrames), at most half a frame.
 */
export function placedParts(request: ClipRequest, runs: Run[], anchorSeconds: number, samples = Math.round(request.durationSeconds * PLAN_SAMPLE_RATE)): PlanPart[] {
  const parts: PlanPart[] = [];
  let clipSeconds = 0;
  runs.forEach((run, i) => {
    // A join is placed half a crossfade before its bar line, so the crossfade is over when the downbeat's attack comes.
    const early = i > 0 ? JOIN_LEAD_SECONDS : 0;
    const clipStart = Math.round((clipSeconds - early) * PLAN_SAMPLE_RATE);
    parts.push({
      clipStart,
      sourceStart: Math.round((run.sourceStart - early) * PLAN_SAMPLE_RATE),
      length: 0,
      crossfadeMs: i > 0 || request.mode === 'loop' ? SEAM_CROSSFADE_MS : 0,
    });
    clipSeconds += run.length;
  });
  parts.forEach((part, i) => (part.length = (i + 1 < parts.length ? parts[i + 1].clipStart : samples) - part.clipStart));
  const anchorSample = anchorSeconds * PLAN_SAMPLE_RATE;
  const anchor = request.hitPointSeconds === undefined ? 0 : Math.max(0, parts.findIndex((p) => holdsSample(p, anchorSample)));
  return alignToFrames(parts, anchor, samples);
}

/** Whether a part plays source sample `at`. */
function holdsSample(part: PlanPart, at: number): boolean {
  return at >= part.sourceStart && at < part.sourceStart + part.length;
}

/** Where source time `seconds` first plays in the parts, clip seconds; null when it does not. */
function clipTimeOf(parts: PlanPart[], seconds: number): number | null {
  const sample = seconds * PLAN_SAMPLE_RATE;
  const holder = parts.find((p) => holdsSample(p, sample));
  return holder ? (holder.clipStart + sample - holder.sourceStart) / PLAN_SAMPLE_RATE : null;
}

/** The beats of the grid `times` (source seconds) as the parts play them, clip seconds rounded to the millisecond. */
function clipBeats(parts: PlanPart[], times: ArrayLike<number>, stretch: number): number[] {
  return parts.flatMap((p) => beatsInClip(times, p.sourceStart / PLAN_SAMPLE_RATE, (p.sourceStart + p.length) / PLAN_SAMPLE_RATE, p.clipStart / PLAN_SAMPLE_RATE)).map((t) => rounded(t * stretch));
}

/**
 * The plan of `runs` (their lengths adding up to D / stretch): placed in whole samples, with where
 * the track's peak lands. `anchorSeconds` is the source time placed at H (the peak, or another
 * entrance: `hitAnchor`).
 */
export function planOf(request: ClipRequest, runs: Run[], grid: PlanGrid, ending: Ending, anchorSeconds = grid.peakSeconds, hitAnchor: HitAnchor = 'peak', stretch = 1): ClipPlan {
  const timelineSamples = Math.round((request.durationSeconds / stretch) * PLAN_SAMPLE_RATE);
  const parts = placedParts(request, runs, anchorSeconds, timelineSamples);
  const peakOnTimeline = clipTimeOf(parts, grid.peakSeconds);
  const peakInClip = peakOnTimeline === null ? null : peakOnTimeline * stretch;
  const hit = request.hitPointSeconds;
  const withHit = request.mode === 'edit' && hit !== undefined;
  return {
    mode: request.mode,
    durationSeconds: request.durationSeconds,
    samples: Math.round(request.durationSeconds * PLAN_SAMPLE_RATE),
    stretch,
    timelineSamples,
    parts,
    hitPointSeconds: hit ?? null,
    peakInClipSeconds: peakInClip === null ? null : rounded(peakInClip),
    ending,
    hitPointLanding: withHit ? (peakInClip !== null && Math.abs(peakInClip - hit) <= LANDING_SECONDS ? 'sure' : 'miss') : null,
    hitPointAnchor: withHit ? hitAnchor : null,
    runs,
    beats: clipBeats(parts, grid.beats, stretch),
    downbeats: clipBeats(parts, grid.lines.subarray(0, grid.bars), stretch),
  };
}

/** The X-Clip-Plan header: [clip_start, source_start, length] triples in seconds, 3 decimals; clip times and lengths as the clip plays them. */
export function planHeader(plan: ClipPlan): string {
  const r = plan.stretch;
  return JSON.stringify(plan.parts.map((p) => [p.clipStart * r, p.sourceStart, p.length * r].map((s) => rounded(s / PLAN_SAMPLE_RATE))));
}

/** The plan as POST /clip-plan returns it. */
export function planJson(plan: ClipPlan) {
  return {
    mode: plan.mode,
    duration_seconds: plan.durationSeconds,
    parts: plan.parts.map((p) => ({
      clip_start: rounded((p.clipStart * plan.stretch) / PLAN_SAMPLE_RATE),
      source_start: rounded(p.sourceStart / PLAN_SAMPLE_RATE),
      length: rounded((p.length * plan.stretch) / PLAN_SAMPLE_RATE),
      crossfade_ms: p.crossfadeMs,
    })),
    stretch: Math.round(plan.stretch * 1e5) / 1e5,
    hit_point_seconds: plan.hitPointSeconds,
    peak_in_clip_seconds: plan.peakInClipSeconds,
    ending: plan.ending,
    hit_point_landing: plan.hitPointLanding,
    hit_point_anchor: plan.hitPointAnchor,
    beats: plan.beats,
    downbeats: plan.downbeats,
  };
}
