// A query's understood concepts compiled against the catalog's own values: per concept, a weight
// for each genre, mood and instrument number of the index, for each energy level and vocals
// value, and its tempo ranges. Scoring a track is then a few array reads per concept
// (track-profiles.ts). A negated concept asks for the other energy, tempo or vocals ("not too
// fast", "no vocals") and counts its genres, moods and instruments against a track ("no drums").
import { ENERGY_LEVELS, type EnergyLevel } from '../catalog/vocabulary.ts';
import type { Concept, TempoRange } from './lexicon.ts';
import type { UnderstoodConcept } from './understand.ts';
import type { Numbering } from './numbering.ts';
import { VOCALS } from './track-facts.ts';
import type { GroundedWeights } from './catalog-grounding.ts';

/** Share of a concept's weight per catalog value that rides on what its words ground in this catalog, where they do. */
export const GROUNDED_SHARE = 0.5;

/** How much an adjacent energy level fits (low for medium, medium for high). */
export const ADJACENT_ENERGY_FIT = 0.35;

/** What a catalog value means in the vocabulary ("Uplifting" -> Inspiring 1, Hopeful 0.8, ...). */
export type ValueMeaning = (group: 'genres' | 'moods' | 'instruments', value: string) => Map<string, number>;

export interface CompiledConcept {
  /** +1 wanted, -1 counted against. */
  sign: number;
  strength: number;
  /** Sum of the groups' top weights in this catalog: a track fitting every group as well as any can scores 1. */
  norm: number;
  genre: Float32Array | null;
  mood: Float32Array | null;
  instrument: Float32Array | null;
  /** Per ENERGY_LEVELS index: the best fit of the wanted levels to it. */
  energy: Float32Array | null;
  /** Per VOCALS value (without, with). */
  vocals: Float32Array | null;
  tempo: TempoRange[];
  /** Tempo ranges to stay out of (a negated tempo), scored by distance from them. */
  avoidTempo: TempoRange[];
}

export interface CatalogNumberings { genres: Numbering; moods: Numbering; instruments: Numbering }

function maxOf(values: Iterable<number>): number {
  let m = 0;
  for (const v of values) m = Math.max(m, v);
  return m;
}

/**
 * Weights per catalog value number: the best of (what the value means) x (the concept's weight).
 * Where the concept's own words ground in this catalog, each is weighed by how much those words'
 * tracks carry it (GROUNDED_SHARE of it rides on that): the lexicon chooses among the tags that
 * exist here, the catalog says which of them the words go with.
 */
function perCatalogValue(wanted: Map<string, number>, numbering: Numbering, group: 'genres' | 'moods' | 'instruments', meaning: ValueMeaning, grounded: Float32Array | null): Float32Array | null {
  if (wanted.size === 0) return null;
  const values = numbering.values();
  const out = new Float32Array(values.length);
  values.forEach((value, n) => {
    for (const [vocabularyValue, fit] of meaning(group, value)) out[n] = Math.max(out[n], fit * (wanted.get(vocabularyValue) ?? 0));
    if (grounded !== null) out[n] *= 1 - GROUNDED_SHARE + GROUNDED_SHARE * grounded[n];
  });
  return out;
}

function energyFit(wanted: Map<EnergyLevel, number>): Float32Array | null {
  if (wanted.size === 0) return null;
  const out = new Float32Array(ENERGY_LEVELS.length);
  ENERGY_LEVELS.forEach((level, l) => {
    for (const [w, weight] of wanted) {
      const distance = Math.abs(ENERGY_LEVELS.indexOf(w) - l);
      out[l] = Math.max(out[l], weight * (distance === 0 ? 1 : distance === 1 ? ADJACENT_ENERGY_FIT : 0));
    }
  });
  return out;
}

function vocalsFit(v: Concept['vocals']): Float32Array | null {
  if (v.with === 0 && v.without === 0) return null;
  const out = new Float32Array(2);
  out[VOCALS.with] = v.with;
  out[VOCALS.without] = v.without;
  return out;
}

/** The energy levels a negated concept leaves: each level's weight is the top weight less its own. */
function otherEnergy(energy: Map<EnergyLevel, number>): Map<EnergyLevel, number> {
  const top = maxOf(energy.values());
  return new Map(ENERGY_LEVELS.map((l) => [l, top - (energy.get(l) ?? 0)] as [EnergyLevel, number]).filter(([, w]) => w > 0));
}

/** The groups of a concept that one compiled concept scores (a negated concept splits them). */
interface ScoredGroups {
  genres: Map<string, number>;
  moods: Map<string, number>;
  instruments: Map<string, number>;
  energy: Map<EnergyLevel, number>;
  vocals: Concept['vocals'];
  tempo: TempoRange[];
  avoidTempo: TempoRange[];
}

/** The most a group's per-catalog weights reach (0: none, or no value of this catalog fits it). */
const reach = (weights: Float32Array | null) => (weights === null ? 0 : maxOf(weights));

/**
 * One concept over this catalog. Its norm counts what this catalog's values can reach, not what
 * the lexicon asks for: a concept that aims at a mood no track carries ("Suspense") is fitted
 * fully by the nearest one the catalog has ("Dark"), rather than leaving its genre to decide.
 */
function compileOne(sign: number, strength: number, catalog: CatalogNumberings, meaning: ValueMeaning, g: ScoredGroups, grounded: GroundedWeights | null): CompiledConcept | null {
  const genre = perCatalogValue(g.genres, catalog.genres, 'genres', meaning, grounded?.genres ?? null);
  const mood = perCatalogValue(g.moods, catalog.moods, 'moods', meaning, grounded?.moods ?? null);
  const instrument = perCatalogValue(g.instruments, catalog.instruments, 'instruments', meaning, grounded?.instruments ?? null);
  const norm = reach(genre) + reach(mood) + reach(instrument) + maxOf(g.energy.values()) +
    Math.max(g.vocals.with, g.vocals.without) + maxOf([...g.tempo, ...g.avoidTempo].map((r) => r.weight));
  if (norm === 0) return null;
  return {
    sign,
    strength,
    norm,
    genre,
    mood,
    instrument,
    energy: energyFit(g.energy),
    vocals: vocalsFit(g.vocals),
    tempo: g.tempo,
    avoidTempo: g.avoidTempo,
  };
}

/**
 * The concepts as scored against this catalog (a negated one as up to two: the other values
 * wanted, its values against); `grounding` gives what a wanted concept's words ground here.
 */
export function compileConcepts(understood: UnderstoodConcept[], catalog: CatalogNumberings, meaning: ValueMeaning, grounding: (index: number) => GroundedWeights | null): CompiledConcept[] {
  const out: CompiledConcept[] = [];
  const none = { genres: new Map(), moods: new Map(), instruments: new Map(), energy: new Map(), vocals: { with: 0, without: 0 }, tempo: [], avoidTempo: [] };
  understood.forEach(({ concept: c, negated, strength }, index) => {
    const values = { genres: c.genres, moods: c.moods, instruments: c.instruments };
    const parts = negated
      ? [
          // The other energy, tempo and vocals wanted; its genres, moods and instruments against.
          compileOne(1, strength, catalog, meaning, { ...none, energy: c.energy.size ? otherEnergy(c.energy) : new Map(), vocals: { with: c.vocals.without, without: c.vocals.with }, avoidTempo: c.tempo }, null),
          compileOne(-1, strength, catalog, meaning, { ...none, ...values }, null),
        ]
      : [compileOne(1, strength, catalog, meaning, { ...values, energy: c.energy, vocals: c.vocals, tempo: c.tempo, avoidTempo: [] }, grounding(index))];
    for (const part of parts) if (part) out.push(part);
  });
  return out;
}
