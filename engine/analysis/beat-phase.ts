// One beat grid through the whole piece. The dynamic programme (beats.ts) scores each beat by the
// onsets under it, so where a passage's off-beats are louder than its beats (guitars on the "and",
// a snare-heavy riff), it slides into the off-beat over a few beats, each gap a little long or
// short: a half-beat slide costs it less than a bar of weaker onsets. Rock songs whose charts give
// the beats showed it (Frets on Fire's War of freedom: 55% of the tracked beats half a beat off,
// in three passages; Feelings: its 40 s intro). A clip that ends on such a grid's bar line ends
// half a beat off, and a join between the two phases skips half a beat.
//
// So the slides are found (a run of beats whose gaps all run long, or all short, by more than the
// median step, adding up to about half a period), the beats between them labelled by phase, and
// the passages of one phase moved half a period onto the other. Which phase is the beat is decided
// by two equal votes over the whole piece: where the chords change (on the beat) and where the
// onsets are strongest (on the beat, unless the groove pushes the "and"). The beats of a slide itself are spaced evenly between the grid before
// it and after it.
//
// A piece tracked on the off-beat from start to end has no slide to find. Its onsets cannot say
// which phase is the beat, since the tracker followed them there, so only the chords can move it:
// it moves half a period when its chords change clearly more on its off-beats than on its beats
// (WHOLE_PIECE_HARMONY_MARGIN). Scored game music shows it, a drum kit's snare and hi-hat
// louder on every "and" than the kick on the beat.
//
// A piece whose score does shift its grid (a tracker module's pattern delay, a fermata) is moved
// onto the wrong phase after the shift. The trade is measured on music whose true beats are known
// (tracker modules and Frets on Fire songs): `npm test -- beat-phase tracker-modules` checks the
// share of beats on true ones, and `npm run bench -- edits` reports beat F per set.

/** A gap counts towards a slide when it is off the piece's own drift by more than this share of a period. */
const SLIDE_STEP_PERIODS = 0.02;
/** A slide adds up to half a period within this much. */
const HALF_PERIOD_TOLERANCE = 0.16;
/** A slide spans at most this many beats (they took 8-13 on the chart songs). */
const MAX_SLIDE_BEATS = 20;
/**
 * Slides are looked for only in pieces of at least this many beats (64 bars of 4): over a short
 * piece or an excerpt the votes for a phase come from a passage or two, too few to overrule how the
 * passage itself was tracked.
 */
const MIN_BEATS = 256;
/**
 * A piece tracked on one phase throughout has at least this many beats (32 bars of 4) before its
 * chords may move it: fewer give too few chord changes to tell the beat from the "and".
 */
const MIN_WHOLE_PIECE_BEATS = 128;
/**
 * A piece tracked on one phase throughout moves onto the other when its harmony changes this much
 * more there (contrast, -1..1). Set on the tuning sets, Freedoom's level music and Planet Blupi's
 * scores, analysed after an MP3 round trip as the catalog's tracks are (`EDITS_SETS=freedoom,blupi
 * npm run bench -- edits`): their pieces tracked on the beat throughout reach 0.14 at most, those
 * on the "and" 0.02 to 0.29 (four of eight above this margin). Anywhere from 0.1 to 0.2 moves more
 * of the latter than of the former.
 */
const WHOLE_PIECE_HARMONY_MARGIN = 0.15;
/** Frames either side of a moved beat's new place where it may go to the strongest onset. */
const SNAP_FRAMES = 1;

/** Phase steps of less than half a period either way: the fractional part about 0. */
function wrapped(periods: number): number {
  return periods - Math.round(periods);
}

/**
 * Each beat's phase step from the beat before (periods, about 0; index 0 is 0) and the piece's
 * median step: how far the tempo period is off the beats' own spacing, which every gap carries.
 */
function phaseSteps(beats: Int32Array, periodFrames: number): { steps: Float64Array; medianStep: number } {
  const steps = new Float64Array(beats.length);
  for (let i = 1; i < beats.length; i++) steps[i] = wrapped((beats[i] - beats[i - 1]) / periodFrames);
  const sorted = steps.slice(1).sort();
  return { steps, medianStep: sorted[sorted.length >> 1] };
}

/**
 * The slides, each as [its first beat off both phases, the first beat on the new one]: runs of
 * steps off the median step by more than SLIDE_STEP_PERIODS, all one way, adding up to half a
 * period. A run longer than MAX_SLIDE_BEATS is the music's own time (a passage played slower), and
 * one the piece ends in never reaches the other phase: neither is a slide.
 */
export function halfBeatSlides(beats: Int32Array, periodFrames: number): [number, number][] {
  const { steps, medianStep } = phaseSteps(beats, periodFrames);
  const slides: [number, number][] = [];
  let i = 1;
  while (i < beats.length) {
    const sign = Math.sign(steps[i] - medianStep);
    let end = i;
    let slide = 0;
    while (end < beats.length && sign * (steps[end] - medianStep) > SLIDE_STEP_PERIODS) slide += steps[end++] - medianStep;
    if (end === i) {
      i++;
      continue;
    }
    const halfPeriod = Math.abs(Math.abs(slide) - 0.5) < HALF_PERIOD_TOLERANCE;
    if (halfPeriod && end - i <= MAX_SLIDE_BEATS && end < beats.length) slides.push([i, end - 1]);
    i = end;
  }
  return slides;
}

/** Each beat's phase: 0 before the first slide, flipping at each; -1 for a slide's beats off both. */
function phaseLabels(count: number, slides: [number, number][]): Int8Array {
  const labels = new Int8Array(count);
  let phase = 0;
  let next = 0;
  for (let i = 0; i < count; i++) {
    // Slides can follow one another at once: a slide's last beat can be the next one's first.
    while (next < slides.length && i >= slides[next][1]) {
      phase ^= 1;
      next++;
    }
    labels[i] = next < slides.length && i >= slides[next][0] ? -1 : phase;
  }
  return labels;
}

/** The frame within SNAP_FRAMES of `frame` with the strongest onset; -1 when `frame` is past the onsets' end. */
export function strongestNear(onset: Float32Array, frame: number): number {
  const centre = Math.round(frame);
  let best = -1;
  for (let f = Math.max(0, centre - SNAP_FRAMES); f <= Math.min(onset.length - 1, centre + SNAP_FRAMES); f++) if (best < 0 || onset[f] > onset[best]) best = f;
  return best;
}

/** Each phase's onset strength over the piece: each beat's onset counts for its own phase, the onset half a period on for the other. */
function phaseStrengths(beats: Int32Array, labels: Int8Array, onset: Float32Array, periodFrames: number): [number, number] {
  const strength: [number, number] = [0, 0];
  for (let i = 0; i < beats.length; i++) {
    const other = strongestNear(onset, beats[i] + periodFrames / 2);
    if (labels[i] < 0 || other < 0) continue;
    strength[labels[i]] += onset[strongestNear(onset, beats[i])];
    strength[1 - labels[i]] += onset[other];
  }
  return strength;
}

/** Each phase's harmonic change over the piece: at each beat for its own phase, half a period on for the other. */
function phaseChanges(beats: Int32Array, labels: Int8Array, changeAt: (frame: number) => number, periodFrames: number): [number, number] {
  const change: [number, number] = [0, 0];
  for (let i = 0; i < beats.length; i++) {
    if (labels[i] < 0) continue;
    change[labels[i]] += changeAt(beats[i]);
    change[1 - labels[i]] += changeAt(Math.round(beats[i] + periodFrames / 2));
  }
  return change;
}

/** How much more phase 1 has than phase 0, as a share of both (-1..1; 0 when neither has any). */
const contrast = ([a, b]: [number, number]) => (a + b > 0 ? (b - a) / (a + b) : 0);

/**
 * The phase (0 or 1) the beat is on, by two votes of equal weight: where the chords change
 * (`changeAt`: how much the harmony changes at a frame; chords change on the beat) and where the
 * onsets are strongest. Either alone fails on music that pushes the "and": guitars, bass lines
 * and hi-hats on the off-beat outweigh the beat's onsets, and a riff can change chord on it too.
 * Ties keep phase 0.
 */
function beatPhase(beats: Int32Array, labels: Int8Array, onset: Float32Array, changeAt: ((frame: number) => number) | undefined, periodFrames: number): 0 | 1 {
  const harmony = changeAt ? contrast(phaseChanges(beats, labels, changeAt, periodFrames)) : 0;
  return harmony + contrast(phaseStrengths(beats, labels, onset, periodFrames)) > 0 ? 1 : 0;
}

/**
 * The beats of the kept phase as they are, the others' half a period on (a beat moved past the
 * onsets' end is dropped), and where the two meet or a slide's beats were left out, the gap filled
 * with evenly spaced beats; a beat within 3/4 of a period of the one before is dropped.
 */
function regridded(beats: Int32Array, labels: Int8Array, keep: number, onset: Float32Array, periodFrames: number): Int32Array {
  const placed: number[] = [];
  let previous = -1; // the index of the beat placed last
  for (let i = 0; i < beats.length; i++) {
    if (labels[i] < 0) continue;
    const frame = labels[i] === keep ? beats[i] : strongestNear(onset, beats[i] + periodFrames / 2);
    const last = placed[placed.length - 1];
    if (frame < 0 || (last !== undefined && frame - last < 0.75 * periodFrames)) continue;
    const junction = previous >= 0 && (i - previous > 1 || labels[i] !== labels[previous]);
    if (junction && frame - last > 1.5 * periodFrames) {
      const gaps = Math.round((frame - last) / periodFrames);
      for (let k = 1; k < gaps; k++) placed.push(Math.round(last + (k * (frame - last)) / gaps));
    }
    placed.push(frame);
    previous = i;
  }
  return Int32Array.from(placed);
}

/**
 * The phase a piece tracked on one phase throughout is on: 1 (the "and") only when its chords
 * change more there than on its beats by WHOLE_PIECE_HARMONY_MARGIN.
 */
function wholePiecePhase(beats: Int32Array, labels: Int8Array, changeAt: ((frame: number) => number) | undefined, periodFrames: number): 0 | 1 {
  if (!changeAt || beats.length < MIN_WHOLE_PIECE_BEATS) return 0;
  return contrast(phaseChanges(beats, labels, changeAt, periodFrames)) > WHOLE_PIECE_HARMONY_MARGIN ? 1 : 0;
}

/**
 * `beats` (frames, ascending) on one grid: the passages a half-beat slide led off it moved back,
 * or a piece tracked on the off-beat throughout moved onto its chords' beat. Returned as given
 * when neither moves.
 */
export function onOneGrid(beats: Int32Array, onset: Float32Array, periodFrames: number, changeAt?: (frame: number) => number): Int32Array {
  const slides = beats.length < MIN_BEATS ? [] : halfBeatSlides(beats, periodFrames);
  const labels = phaseLabels(beats.length, slides);
  const keep = slides.length > 0 ? beatPhase(beats, labels, onset, changeAt, periodFrames) : wholePiecePhase(beats, labels, changeAt, periodFrames);
  return slides.length === 0 && keep === 0 ? beats : regridded(beats, labels, keep, onset, periodFrames);
}
