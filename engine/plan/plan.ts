// A clip plan: which stretches of the source play at which clip times. Every clip (segment, edit,
// loop) is made from its plan, and the plan is what X-Clip-Plan and POST /clip-plan show.
import { alignToFrames, onOnsetPhase } from './frame-align.ts';

export const CLIP_MODES = ['segment', 'edit', 'loop'] as const;
export type ClipMode = (typeof CLIP_MODES)[number];
export type Ending = 'track_end' | 'bar_line' | 'cut';
/**
 * Where an edit's check (peak-landing.ts) foresees its clip's own peak: at H with a sure margin,
 * at H by a thin one, or elsewhere (a track with no climax to place, such as a loop at one level
 * throughout, has none any plan can put at H).
 */
export type Landing = 'sure' | 'thin' | 'miss';

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
  samples: number;
  parts: PlanPart[];
  hitPointSeconds: number | null;
  /** Where the track's peak plays in the clip (its first appearance), or null when it is not in it. */
  peakInClipSeconds: number | null;
  ending: Ending;
  /** An edit with a hit point: where its check foresees the clip's peak (Landing); null for any other plan. */
  hitPointLanding: Landing | null;
  /** The runs the parts were placed from (seconds): what the edit's search made, before the parts' joins and frames moved them. */
  runs: Run[];
}

/** A part as the builders make it, in seconds of source and of clip. */
export interface Run {
  sourceStart: number;
  length: number;
}

/**
 * The source time that plays at `clipSeconds` of the runs; undefined past their end. A time less
 * than `slackSeconds` before a run's start is that start: a beat on a run's first frame is
 * rounded to the frame grid, and may fall that far before it.
 */
export function sourceTimeAt(runs: Run[], clipSeconds: number, slackSeconds: number): number | undefined {
  let start = 0;
  for (let i = 0; i < runs.length; i++) {
    const end = start + runs[i].length;
    if (clipSeconds < end - (i + 1 < runs.length ? slackSeconds : 0)) return runs[i].sourceStart + Math.max(0, clipSeconds - start);
    start = end;
  }
  return undefined;
}

function rounded(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/**
 * The runs laid end to end, in whole samples: each run's clip start is rounded once, so the
 * lengths add up to exactly the clip's samples and no run drifts against its source. With a hit
 * point, the part that plays the peak (at `peakSeconds`) is the anchor: it moves onto the analysis's
 * onset phases (onOnsetPhase) and the others onto its MP3 frame phase (alignToFrames).
 */
export function placedParts(request: ClipRequest, runs: Run[], peakSeconds: number): PlanPart[] {
  const samples = Math.round(request.durationSeconds * PLAN_SAMPLE_RATE);
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
  const peakSample = peakSeconds * PLAN_SAMPLE_RATE;
  // With a hit point the part that plays the peak keeps its place; the others move to its frame phase.
  const anchor = request.hitPointSeconds === undefined ? 0 : Math.max(0, parts.findIndex((p) => holdsSample(p, peakSample)));
  if (request.mode === 'edit' && request.hitPointSeconds !== undefined) onOnsetPhase(parts[anchor]);
  return alignToFrames(parts, anchor, samples);
}

/** Whether a part plays source sample `at`. */
function holdsSample(part: PlanPart, at: number): boolean {
  return at >= part.sourceStart && at < part.sourceStart + part.length;
}

export function planOf(request: ClipRequest, runs: Run[], peakSeconds: number, ending: Ending, hitPointLanding: Landing | null = null): ClipPlan {
  const parts = placedParts(request, runs, peakSeconds);
  const peakSample = peakSeconds * PLAN_SAMPLE_RATE;
  const holder = parts.find((p) => holdsSample(p, peakSample));
  return {
    mode: request.mode,
    durationSeconds: request.durationSeconds,
    samples: Math.round(request.durationSeconds * PLAN_SAMPLE_RATE),
    parts,
    hitPointSeconds: request.hitPointSeconds ?? null,
    peakInClipSeconds: holder ? rounded((holder.clipStart + peakSample - holder.sourceStart) / PLAN_SAMPLE_RATE) : null,
    ending,
    hitPointLanding,
    runs,
  };
}

/** The X-Clip-Plan header: [clip_start, source_start, length] triples in seconds, 3 decimals. */
export function planHeader(plan: ClipPlan): string {
  return JSON.stringify(plan.parts.map((p) => [p.clipStart, p.sourceStart, p.length].map((s) => rounded(s / PLAN_SAMPLE_RATE))));
}

/** The plan as POST /clip-plan returns it. */
export function planJson(plan: ClipPlan) {
  return {
    mode: plan.mode,
    duration_seconds: plan.durationSeconds,
    parts: plan.parts.map((p) => ({
      clip_start: rounded(p.clipStart / PLAN_SAMPLE_RATE),
      source_start: rounded(p.sourceStart / PLAN_SAMPLE_RATE),
      length: rounded(p.length / PLAN_SAMPLE_RATE),
      crossfade_ms: p.crossfadeMs,
    })),
    hit_point_seconds: plan.hitPointSeconds,
    peak_in_clip_seconds: plan.peakInClipSeconds,
    ending: plan.ending,
    hit_point_landing: plan.hitPointLanding,
  };
}
