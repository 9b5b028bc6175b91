// How well tracks fit a query's compiled concepts (query-profile.ts), as lookup tables: per genre,
// set of moods, set of instruments, energy, vocals and tempo bin (track-facts.ts), and their sum
// per combination of tags, so a track's profile score is two array reads (its tag combination,
// its tempo bin; search-index.ts's loop) and scoring 100,000 tracks takes about a millisecond. Per concept, each group adds its best matching weight, divided
// by the concept's norm (a track that fits a concept fully scores 1); the profile score is the
// strength-weighted mean over the wanted concepts, less the fit of the concepts counted against.
import type { CompiledConcept } from './query-profile.ts';
import type { TempoRange } from './lexicon.ts';
import { BPM_BIN_WIDTH, MAX_BPM_BIN, type TrackFacts } from './track-facts.ts';

/** A tempo this many BPM outside a wanted range still fits a little (linearly less, to nothing). */
export const TEMPO_SOFT_EDGE_BPM = 12;

export interface ProfileTables {
  /** By tag combination (track-facts.ts tagSetOf): the five tables below summed. */
  tagSet: Float32Array;
  /** Whether `tempo` has any weight (else a search need not read it). */
  usesTempo: boolean;
  /** By genre number + 1 (0: none). */
  genre: Float32Array;
  moodSet: Float32Array;
  instrumentSet: Float32Array;
  /** By energy index + 1 (0: none). */
  energy: Float32Array;
  /** By VOCALS value + 1 (0: unknown). */
  vocals: Float32Array;
  /** By BPM bin + 1 (0: none). */
  tempo: Float32Array;
}

/** 1 inside the range, falling to 0 at TEMPO_SOFT_EDGE_BPM outside it. */
function tempoFit(bpm: number, r: TempoRange): number {
  const distance = bpm < r.from ? r.from - bpm : bpm >= r.to ? bpm - r.to : 0;
  return Math.max(0, 1 - distance / TEMPO_SOFT_EDGE_BPM);
}

function tempoScore(bpm: number, c: CompiledConcept): number {
  let best = 0;
  for (const r of c.tempo) best = Math.max(best, r.weight * tempoFit(bpm, r));
  for (const r of c.avoidTempo) best = Math.max(best, r.weight * (1 - tempoFit(bpm, r)));
  return best;
}

function bestOf(weights: Float32Array, members: number[]): number {
  let best = 0;
  for (const m of members) if (weights[m] > best) best = weights[m];
  return best;
}

/** The tables of a query's concepts over this index's values. */
export function profileTables(concepts: CompiledConcept[], facts: TrackFacts): ProfileTables {
  const t: ProfileTables = {
    tagSet: new Float32Array(facts.tagSetMembers.length),
    usesTempo: false,
    genre: new Float32Array(facts.genres.size() + 1),
    moodSet: new Float32Array(facts.moodSetMembers.length),
    instrumentSet: new Float32Array(facts.instrumentSetMembers.length),
    energy: new Float32Array(4),
    vocals: new Float32Array(3),
    tempo: new Float32Array(MAX_BPM_BIN + 2),
  };
  let usesTempo = false;
  const wanted = concepts.reduce((sum, c) => sum + (c.sign > 0 ? c.strength : 0), 0);
  for (const c of concepts) {
    const k = (c.sign * c.strength) / (c.norm * (wanted > 0 ? wanted : 1));
    if (c.genre) c.genre.forEach((w, g) => (t.genre[g + 1] += k * w));
    if (c.mood) facts.moodSetMembers.forEach((members, s) => (t.moodSet[s] += k * bestOf(c.mood!, members)));
    if (c.instrument) facts.instrumentSetMembers.forEach((members, s) => (t.instrumentSet[s] += k * bestOf(c.instrument!, members)));
    if (c.energy) c.energy.forEach((w, e) => (t.energy[e + 1] += k * w));
    if (c.vocals) c.vocals.forEach((w, v) => (t.vocals[v + 1] += k * w));
    if (c.tempo.length > 0 || c.avoidTempo.length > 0) {
      usesTempo = true;
      for (let bin = 0; bin <= MAX_BPM_BIN; bin++) t.tempo[bin + 1] += k * tempoScore(bin * BPM_BIN_WIDTH, c);
    }
  }
  t.usesTempo = usesTempo;
  facts.tagSetMembers.forEach(([genre, moodSet, instrumentSet, energy, vocals], n) => {
    t.tagSet[n] = t.genre[genre] + t.moodSet[moodSet] + t.instrumentSet[instrumentSet] + t.energy[energy] + t.vocals[vocals];
  });
  return t;
}
