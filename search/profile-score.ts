// How well a track fits a query's compiled concepts (query-profile.ts), from its genre, moods,
// instruments, energy, vocals and tempo (track-facts.ts): per concept, each group adds its best
// matching weight, divided by the concept's norm, so a track that fits a concept fully scores 1;
// the profile score is the strength-weighted mean over the wanted concepts, less the fit of the
// concepts counted against it.
import type { CompiledConcept } from './query-profile.ts';
import type { TempoRange } from './lexicon.ts';
import type { TrackFacts } from './track-facts.ts';

/** A tempo this many BPM outside a wanted range still fits a little (linearly less, to nothing). */
export const TEMPO_SOFT_EDGE_BPM = 12;

/** 1 inside the range, falling to 0 at TEMPO_SOFT_EDGE_BPM outside it; 0 for an unknown tempo. */
function tempoFit(bpm: number, r: TempoRange): number {
  if (!(bpm === bpm)) return 0; // NaN
  const distance = bpm < r.from ? r.from - bpm : bpm >= r.to ? bpm - r.to : 0;
  return Math.max(0, 1 - distance / TEMPO_SOFT_EDGE_BPM);
}

function bestListed(weights: Float32Array, values: Int32Array, from: number, to: number): number {
  let best = 0;
  for (let k = from; k < to; k++) if (weights[values[k]] > best) best = weights[values[k]];
  return best;
}

/** The fit of one document to one concept, 0-1. */
function conceptFit(doc: number, c: CompiledConcept, facts: TrackFacts): number {
  let sum = 0;
  if (c.genre) {
    const g = facts.genreOf.data[doc];
    if (g >= 0) sum += c.genre[g];
  }
  if (c.mood) sum += bestListed(c.mood, facts.moodsOf.values.data, facts.moodsOf.start.data[doc], facts.moodsOf.start.data[doc + 1]);
  if (c.instrument) sum += bestListed(c.instrument, facts.instrumentsOf.values.data, facts.instrumentsOf.start.data[doc], facts.instrumentsOf.start.data[doc + 1]);
  if (c.energy) {
    const e = facts.energyOf.data[doc];
    if (e >= 0) sum += c.energy[e];
  }
  if (c.vocals) {
    const v = facts.vocalsOf.data[doc];
    if (v >= 0) sum += c.vocals[v];
  }
  if (c.tempo.length > 0 || c.avoidTempo.length > 0) {
    const bpm = facts.bpmOf.data[doc];
    let best = 0;
    for (const r of c.tempo) best = Math.max(best, r.weight * tempoFit(bpm, r));
    for (const r of c.avoidTempo) if (bpm === bpm) best = Math.max(best, r.weight * (1 - tempoFit(bpm, r)));
    sum += best;
  }
  return sum / c.norm;
}

/** The profile score of a document, about -1 to 1 (0 when there are no concepts). */
export function profileScore(doc: number, concepts: CompiledConcept[], wantedStrength: number, facts: TrackFacts): number {
  let score = 0;
  for (let i = 0; i < concepts.length; i++) {
    const c = concepts[i];
    score += c.sign * c.strength * conceptFit(doc, c, facts);
  }
  return wantedStrength > 0 ? score / wantedStrength : score;
}

/** The denominator of profileScore: the strengths of the wanted concepts. */
export function wantedStrengthOf(concepts: CompiledConcept[]): number {
  return concepts.reduce((sum, c) => sum + (c.sign > 0 ? c.strength : 0), 0);
}
