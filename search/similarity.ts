// "Similar tracks": how alike two tracks are, from what the index holds of each: genre, moods,
// instruments (overlap), energy, vocals, tempo (half and double time count as close: a 170 BPM
// drum and bass track feels like 85), key (distance on the circle of fifths, a relative major or
// minor counting as the same) and timbre (the cosine of the analysis's spectral shapes).
import { ADJACENT_ENERGY_FIT } from './query-profile.ts';
import { column, float32, int32, push } from './typed-column.ts';
import { BPM_BIN_WIDTH, MAX_BPM_BIN, type TrackFacts } from './track-facts.ts';
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

/** Shared over all members of two sorted sets. */
function jaccard(a: number[], b: number[]): number {
  let shared = 0;
  for (const v of a) if (b.includes(v)) shared++;
  const union = a.length + b.length - shared;
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

/** How alike two tag combinations (track-facts.ts tagSetMembers) are: genre, moods, instruments, energy, vocals. */
function tagCloseness(facts: TrackFacts, a: number[], b: number[]): number {
  const [genreA, moodsA, instrumentsA, energyA, vocalsA] = a;
  const [genreB, moodsB, instrumentsB, energyB, vocalsB] = b;
  const energyDistance = Math.abs(energyA - energyB);
  const w = SIMILARITY_WEIGHTS;
  return (
    w.genre * (genreA > 0 && genreA === genreB ? 1 : 0) +
    w.moods * jaccard(facts.moodSetMembers[moodsA], facts.moodSetMembers[moodsB]) +
    w.instruments * jaccard(facts.instrumentSetMembers[instrumentsA], facts.instrumentSetMembers[instrumentsB]) +
    w.energy * (energyA === 0 || energyB === 0 ? 0 : energyDistance === 0 ? 1 : energyDistance === 1 ? ADJACENT_ENERGY_FIT : 0) +
    w.vocals * (vocalsA > 0 && vocalsA === vocalsB ? 1 : 0)
  );
}

const NO_KEY = 12;

export function createSimilarity(facts: TrackFacts) {
  const fifthsOf = column(int32); // 0-11, NO_KEY: none
  const timbreOf = column(float32); // TIMBRE_GROUPS per document; NaN: none
  return {
    add(_doc: number, key: string | null, timbre: number[] | null) {
      const fifths = circleOfFifths(key);
      push(fifthsOf, fifths === fifths ? fifths : NO_KEY);
      for (let k = 0; k < TIMBRE_GROUPS; k++) push(timbreOf, timbre?.length === TIMBRE_GROUPS ? timbre[k] : NaN);
    },
    /**
     * How alike each document is to `of`: the tag, tempo and key parts from tables made once
     * (per tag combination, tempo bin, key), the timbre part per document.
     */
    to(of: number): (doc: number) => number {
      const w = SIMILARITY_WEIGHTS;
      const tagSetOf = facts.tagSetOf.data;
      const bpmBinOf = facts.bpmBinOf.data;
      const ofTags = facts.tagSetMembers[tagSetOf[of]];
      const byTags = Float32Array.from(facts.tagSetMembers, (tags) => tagCloseness(facts, ofTags, tags));
      const ofBpm = facts.bpmOf.data[of];
      const byBin = Float32Array.from({ length: MAX_BPM_BIN + 2 }, (_, shifted) => (shifted === 0 ? 0 : w.tempo * tempoCloseness(ofBpm, (shifted - 1 + 0.5) * BPM_BIN_WIDTH)));
      const ofKey = fifthsOf.data[of];
      const byKey = Float32Array.from({ length: NO_KEY + 1 }, (_, key) => {
        if (key === NO_KEY || ofKey === NO_KEY) return 0;
        const steps = Math.min(Math.abs(ofKey - key), 12 - Math.abs(ofKey - key));
        return w.key * Math.max(0, 1 - steps / KEY_STEPS_RANGE);
      });
      const fifths = fifthsOf.data;
      const shapes = timbreOf.data;
      const base = (doc: number) => byTags[tagSetOf[doc]] + byBin[bpmBinOf[doc] + 1] + byKey[fifths[doc]];
      if (shapes[of * TIMBRE_GROUPS] !== shapes[of * TIMBRE_GROUPS]) return base; // no timbre to compare
      return (doc) => base(doc) + w.timbre * timbreCloseness(shapes, of * TIMBRE_GROUPS, doc * TIMBRE_GROUPS);
    },
  };
}
