// "Similar tracks": how alike two tracks are, from what the index holds of each: genre, moods,
// instruments (overlap), energy, vocals, tempo (half and double time count as close: a 170 BPM
// drum and bass track feels like 85), key (distance on the circle of fifths, a relative major or
// minor counting as the same) and timbre (the cosine of the analysis's spectral shapes).
import { ADJACENT_ENERGY_FIT } from './query-profile.ts';
import { column, float32, push } from './typed-column.ts';
import type { TrackFacts } from './track-facts.ts';
import { TIMBRE_GROUPS } from '../engine/analysis/timbre.ts';

/** Weights of the parts of a similarity (sum 1). */
export const SIMILARITY_WEIGHTS = { genre: 0.22, moods: 0.22, instruments: 0.1, energy: 0.1, tempo: 0.12, key: 0.06, vocals: 0.06, timbre: 0.12 } as const;
/** Tempi further apart than this ratio (after octave folding) do not count as close at all. */
const TEMPO_RATIO_RANGE = 1.2;
/** Keys this many steps apart on the circle of fifths (or more) do not count as close. */
const KEY_STEPS_RANGE = 3;
const PITCH_CLASSES: Record<string, number> = { C: 0, D: 2, E: 4, F: 5, G: 7, A: 9, B: 11 };

/** Position of a key on the circle of fifths (its relative major's), or NaN ("A minor" -> 0, like C major). */
export function circleOfFifths(key: string | null): number {
  const m = key ? /^([A-G])(#|b)? (major|minor)$/.exec(key) : null;
  if (!m) return NaN;
  const pitch = (PITCH_CLASSES[m[1]] + (m[2] === '#' ? 1 : m[2] === 'b' ? 11 : 0) + (m[3] === 'minor' ? 3 : 0)) % 12;
  return (pitch * 7) % 12;
}

function overlap(values: Int32Array, a0: number, a1: number, b0: number, b1: number): number {
  let shared = 0;
  for (let i = a0; i < a1; i++) for (let j = b0; j < b1; j++) if (values[i] === values[j]) shared++;
  const union = a1 - a0 + (b1 - b0) - shared;
  return union > 0 ? shared / union : 0;
}

function tempoCloseness(a: number, b: number): number {
  if (!(a > 0 && b > 0)) return 0;
  let ratio = Math.max(a, b) / Math.min(a, b);
  while (ratio > Math.SQRT2 * 1.2) ratio /= 2; // fold octaves: 2:1 counts as 1:1
  return Math.max(0, 1 - Math.abs(Math.log(ratio)) / Math.log(TEMPO_RATIO_RANGE));
}

/** Cosine of two unit-length shapes, at offsets a and b of the flat column; 0 if either is missing (NaN). */
function timbreCloseness(shapes: Float32Array, a: number, b: number): number {
  let dot = 0;
  for (let k = 0; k < TIMBRE_GROUPS; k++) dot += shapes[a + k] * shapes[b + k];
  return dot === dot ? Math.max(0, dot) : 0;
}

export function createSimilarity(facts: TrackFacts) {
  const fifthsOf = column(float32);
  const timbreOf = column(float32); // TIMBRE_GROUPS per document; NaN: none
  return {
    add(_doc: number, key: string | null, timbre: number[] | null) {
      push(fifthsOf, circleOfFifths(key));
      for (let k = 0; k < TIMBRE_GROUPS; k++) push(timbreOf, timbre?.length === TIMBRE_GROUPS ? timbre[k] : NaN);
    },
    between(a: number, b: number): number {
      const f = facts;
      const list = (c: TrackFacts['moodsOf']) => overlap(c.values.data, c.start.data[a], c.start.data[a + 1], c.start.data[b], c.start.data[b + 1]);
      const energyA = f.energyOf.data[a];
      const energyB = f.energyOf.data[b];
      const energyDistance = Math.abs(energyA - energyB);
      const keySteps = Math.min(Math.abs(fifthsOf.data[a] - fifthsOf.data[b]), 12 - Math.abs(fifthsOf.data[a] - fifthsOf.data[b]));
      const w = SIMILARITY_WEIGHTS;
      return (
        w.genre * (f.genreOf.data[a] >= 0 && f.genreOf.data[a] === f.genreOf.data[b] ? 1 : 0) +
        w.moods * list(f.moodsOf) +
        w.instruments * list(f.instrumentsOf) +
        w.energy * (energyA < 0 || energyB < 0 ? 0 : energyDistance === 0 ? 1 : energyDistance === 1 ? ADJACENT_ENERGY_FIT : 0) +
        w.tempo * tempoCloseness(f.bpmOf.data[a], f.bpmOf.data[b]) +
        w.key * (keySteps === keySteps ? Math.max(0, 1 - keySteps / KEY_STEPS_RANGE) : 0) +
        w.vocals * (f.vocalsOf.data[a] >= 0 && f.vocalsOf.data[a] === f.vocalsOf.data[b] ? 1 : 0) +
        w.timbre * timbreCloseness(timbreOf.data, a * TIMBRE_GROUPS, b * TIMBRE_GROUPS)
      );
    },
  };
}
