// Frame alignment: a clip can copy its source's MP3 frames (re-encoding only around its joins and
// edges, engine/mp3/splice.ts) only where every part keeps the same position against the 1152-
// sample frame grid, i.e. where every part's offset (source start - clip start) is the same
// modulo a frame. So each part's offset is moved to the anchor's phase by at most half a frame
// (13 ms), and each join is placed so the move is shared by the bars on both sides of it: a
// join leaves and enters its bar lines at most half of that (6.5 ms on average) away. The
// anchor (the part that plays what is placed at H, or the first part) does not move.
import { MPEG1_FRAME_SAMPLES } from '../mp3/frame-header.ts';

/** A part's place in the clip and the source, in samples (a plan's parts, with whatever else they carry). */
interface Placed {
  clipStart: number;
  sourceStart: number;
  length: number;
}

/** `apart` less the nearest whole number of frames of `frame` length: in [-frame/2, frame/2]. */
function offFrames(apart: number, frame: number): number {
  return apart - frame * Math.round(apart / frame);
}

/** The shift in (-half frame, +half frame] that brings `offset` to `anchorOffset` modulo a frame (samples). */
function shiftToPhase(offset: number, anchorOffset: number): number {
  const shift = offFrames(anchorOffset - offset, MPEG1_FRAME_SAMPLES);
  return shift === -MPEG1_FRAME_SAMPLES / 2 ? -shift : shift;
}

/**
 * How far (seconds) alignToFrames moves the source of a part that plays `offsetSeconds` ahead of
 * the clip (source time - clip time), beside an anchor part `anchorOffsetSeconds` ahead, in a plan
 * of `sampleRate` samples a second: where the part's end is heard, when it ends the clip. Not
 * rounded to samples first: the plan's own rounding is a sample.
 */
export function frameShiftSeconds(offsetSeconds: number, anchorOffsetSeconds: number, sampleRate: number): number {
  return offFrames(anchorOffsetSeconds - offsetSeconds, MPEG1_FRAME_SAMPLES / sampleRate);
}

/** The parts with every offset on the anchor's frame phase; the clip's length is unchanged. */
export function alignToFrames<T extends Placed>(parts: T[], anchor: number, samples: number): T[] {
  if (parts.length < 2) return parts;
  const offsets = parts.map((p) => p.sourceStart - p.clipStart);
  const shifts = offsets.map((offset) => shiftToPhase(offset, offsets[anchor]));
  // A join moves by minus the mean of its two parts' shifts: both sides then miss their bar line
  // by half the difference of the shifts, in opposite directions.
  const clipStarts = parts.map((p, i) => (i === 0 ? 0 : p.clipStart - Math.round((shifts[i - 1] + shifts[i]) / 2)));
  return parts.map((part, i) => ({
    ...part,
    clipStart: clipStarts[i],
    sourceStart: clipStarts[i] + offsets[i] + shifts[i],
    length: (i + 1 < parts.length ? clipStarts[i + 1] : samples) - clipStarts[i],
  }));
}
