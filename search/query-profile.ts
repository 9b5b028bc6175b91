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

/** How much an adjacent energy level fits (low for medium, medium for high). */
export const ADJACENT_ENERGY_FIT = 0.35;

/** What a catalog value means in the vocabulary ("Uplifting" -> Inspiring 1, Hopeful 0.8, ...). */
export type ValueMeaning = (group: 'genres' | 'moods' | 'instruments', value: string) => Map<string, number>;

export interface CompiledConcept {
  /** +1 wanted, -1 counted against. */
  sign: number;
  strength: number;
  /** Sum of the groups' top weights: a track fitting every group scores 1. */
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

/** Weights per catalog value number: the best of (what the value means) x (the concept's weight). */
function perCatalogValue(wanted: Map<string, number>, numbering: Numbering, group: 'genres' | 'moods' | 'instruments', meaning: ValueMeaning): Float32Array | null {
  if (wanted.size === 0) return null;
  const values = numbering.values();
  const out = new Float32Array(values.length);
  values.forEach((value, n) => {
    for (const [vocabularyValue, fit] of meaning(group, value)) out[n] = Math.max(out[n], fit * (wanted.get(vocabularyValue) ?? 0));
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

function compileOne(c: Concept, sign: number, strength: number, catalog: CatalogNumberings, meaning: ValueMeaning, parts: { values: boolean; energy: Map<EnergyLevel, number>; vocals: Concept['vocals']; tempo: TempoRange[]; avoidTempo: TempoRange[] }): CompiledConcept | null {
  const compiled: CompiledConcept = {
    sign,
    strength,
    norm: 0,
    genre: parts.values ? perCatalogValue(c.genres, catalog.genres, 'genres', meaning) : null,
    mood: parts.values ? perCatalogValue(c.moods, catalog.moods, 'moods', meaning) : null,
    instrument: parts.values ? perCatalogValue(c.instruments, catalog.instruments, 'instruments', meaning) : null,
    energy: energyFit(parts.energy),
    vocals: vocalsFit(parts.vocals),
    tempo: parts.tempo,
    avoidTempo: parts.avoidTempo,
  };
  const groupTops = [
    parts.values ? maxOf(c.genres.values()) : 0,
    parts.values ? maxOf(c.moods.values()) : 0,
    parts.values ? maxOf(c.instruments.values()) : 0,
    maxOf(parts.energy.values()),
    Math.max(parts.vocals.with, parts.vocals.without),
    maxOf([...parts.tempo, ...parts.avoidTempo].map((r) => r.weight)),
  ];
  compiled.norm = groupTops.reduce((a, b) => a + b, 0);
  return compiled.norm > 0 ? compiled : null;
}

/** The concepts as scored against this catalog (a negated one as up to two: the other values wanted, its values against). */
export function compileConcepts(understood: UnderstoodConcept[], catalog: CatalogNumberings, meaning: ValueMeaning): CompiledConcept[] {
  const out: CompiledConcept[] = [];
  const none = { with: 0, without: 0 };
  for (const { concept: c, negated, strength } of understood) {
    if (!negated) {
      const one = compileOne(c, 1, strength, catalog, meaning, { values: true, energy: c.energy, vocals: c.vocals, tempo: c.tempo, avoidTempo: [] });
      if (one) out.push(one);
      continue;
    }
    const wanted = compileOne(c, 1, strength, catalog, meaning, {
      values: false,
      energy: c.energy.size ? otherEnergy(c.energy) : new Map(),
      vocals: { with: c.vocals.without, without: c.vocals.with },
      tempo: [],
      avoidTempo: c.tempo,
    });
    const against = compileOne(c, -1, strength, catalog, meaning, { values: true, energy: new Map(), vocals: none, tempo: [], avoidTempo: [] });
    if (wanted) out.push(wanted);
    if (against) out.push(against);
  }
  return out;
}
