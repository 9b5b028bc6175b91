// How well tracks fit a query's compiled concepts (query-profile.ts), as two lookup tables: one
// per combination of tags (genre, mood set, instrument set, energy, vocals: track-facts.ts), one
// per tempo bin, so a track's profile score is two array reads (ranking-passes.ts). Per concept,
// each group adds its best matching weight, divided by the concept's norm (a track that fits a
// concept fully scores 1); the profile score is the strength-weighted mean over the wanted
// concepts, less the fit of the concepts counted against.
import type { CompiledConcept } from './query-profile.ts';
import type { TempoRange } from './lexicon.ts';
import { BPM_BIN_WIDTH, MAX_BPM_BIN, type TrackFacts } from './track-facts.ts';

/** A tempo this many BPM outside a wanted range still fits a little (linearly less, to nothing). */
export const TEMPO_SOFT_EDGE_BPM = 12;

export interface ProfileTables {
  /** By tag combination (track-facts.ts tagSetOf). */
  tagSet: Float32Array;
  /** By BPM bin + 1 (0: none). */
  tempo: Float32Array;
  /** Whether `tempo` has any weight (else a search need not read it). */
  usesTempo: boolean;
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
  // Per part of a tag combination first (by genre + 1, mood set, instrument set, energy + 1,
  // vocals + 1; 0 is "none"), then their sums per combination.
  const genre = new Float32Array(facts.genres.size() + 1);
  const moodSet = new Float32Array(facts.moodSetMembers.length);
  const instrumentSet = new Float32Array(facts.instrumentSetMembers.length);
  const energy = new Float32Array(4);
  const vocals = new Float32Array(3);
  const tempo = new Float32Array(MAX_BPM_BIN + 2);
  let usesTempo = false;
  const wanted = concepts.reduce((sum, c) => sum + (c.sign > 0 ? c.strength : 0), 0);
  for (const c of concepts) {
    const k = (c.sign * c.strength) / (c.norm * (wanted > 0 ? wanted : 1));
    if (c.genre) c.genre.forEach((w, g) => (genre[g + 1] += k * w));
    if (c.mood) facts.moodSetMembers.forEach((members, s) => (moodSet[s] += k * bestOf(c.mood!, members)));
    if (c.instrument) facts.instrumentSetMembers.forEach((members, s) => (instrumentSet[s] += k * bestOf(c.instrument!, members)));
    if (c.energy) c.energy.forEach((w, e) => (energy[e + 1] += k * w));
    if (c.vocals) c.vocals.forEach((w, v) => (vocals[v + 1] += k * w));
    if (c.tempo.length > 0 || c.avoidTempo.length > 0) {
      usesTempo = true;
      for (let bin = 0; bin <= MAX_BPM_BIN; bin++) tempo[bin + 1] += k * tempoScore(bin * BPM_BIN_WIDTH, c);
    }
  }
  const tagSet = Float32Array.from(facts.tagSetMembers, ([g, m, i, e, v]) => genre[g] + moodSet[m] + instrumentSet[i] + energy[e] + vocals[v]);
  return { tagSet, tempo, usesTempo };
}
