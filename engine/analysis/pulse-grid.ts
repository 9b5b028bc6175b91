// How strongly the onsets mark a pulse: lay a grid of the given period over the onset strength and
// compare what falls on the grid points (the beats) with what falls half-way between them (the
// off-beats). Phase is chosen per window, so slow tempo drift and pauses do not smear the grid.

/** Window over which one grid phase is fitted; long enough for several beats, short against drift. */
const GRID_WINDOW_SECONDS = 6;
/** An onset counts for a grid point within this many frames (about +-23 ms at 86 frames/s). */
const GRID_TOLERANCE_FRAMES = 2;

interface PulseAccents {
  /** Mean onset strength at the beats (the best phase per window). */
  beat: number;
  /** Mean onset strength half-way between those beats. */
  offbeat: number;
}

/**
 * The strongest onset within the tolerance of each frame (0 past the end, never below 0), for
 * frames 0 .. onset.length + GRID_TOLERANCE_FRAMES - 1: computed once, not at every grid point
 * of every phase and period (each frame is read by several).
 */
export function strongestNearEachFrame(onset: Float32Array): Float32Array {
  const near = new Float32Array(onset.length + GRID_TOLERANCE_FRAMES);
  for (let centre = 0; centre < near.length; centre++) {
    let strongest = 0;
    for (let f = Math.max(0, centre - GRID_TOLERANCE_FRAMES); f <= Math.min(onset.length - 1, centre + GRID_TOLERANCE_FRAMES); f++) {
      if (onset[f] > strongest) strongest = onset[f];
    }
    near[centre] = strongest;
  }
  return near;
}

/**
 * Beat and off-beat accents of the pulse with period `periodFrames` (fractional) over `frames`
 * onset frames, read from their strongest-near values (strongestNearEachFrame).
 */
function pulseAccents(near: Float32Array, frames: number, periodFrames: number, frameRate: number): PulseAccents {
  const window = Math.max(Math.round(GRID_WINDOW_SECONDS * frameRate), Math.ceil(4 * periodFrames));
  // Past the end of `near` (an off-beat after the last frames) reads 0 by a bounds test, not by
  // reading past a typed array's end: V8's slow path there made the accents take ~2.4x the time.
  const strongestNear = (frame: number) => {
    const at = Math.round(frame);
    return at < near.length ? near[at] : 0;
  };
  let beatSum = 0;
  let offbeatSum = 0;
  let windows = 0;
  for (let start = 0; start === 0 || start + window <= frames; start += window) {
    const end = Math.min(frames, start + window);
    let bestBeat = -1;
    let bestOffbeat = 0;
    for (let phase = 0; phase < periodFrames; phase++) {
      let beat = 0;
      let offbeat = 0;
      let points = 0;
      for (let t = start + phase; t < end; t += periodFrames, points++) {
        beat += strongestNear(t);
        offbeat += strongestNear(t + periodFrames / 2);
      }
      if (points && beat / points > bestBeat) {
        bestBeat = beat / points;
        bestOffbeat = offbeat / points;
      }
    }
    beatSum += Math.max(0, bestBeat);
    offbeatSum += bestOffbeat;
    windows++;
  }
  return { beat: beatSum / windows, offbeat: offbeatSum / windows };
}

/**
 * The off-beat accent relative to the beat (0: nothing between the beats, 1: as strong as the
 * beats) of the onset envelope at any period: the strongest onset near each frame is found once,
 * at the first period asked, for all of them (a metrical-level decision asks two or more).
 */
export function offbeatRatios(onset: Float32Array, frameRate: number): (periodFrames: number) => number {
  let near: Float32Array | undefined;
  return (periodFrames) => {
    near ??= strongestNearEachFrame(onset);
    const { beat, offbeat } = pulseAccents(near, onset.length, periodFrames, frameRate);
    return beat > 0 ? offbeat / beat : 1;
  };
}
