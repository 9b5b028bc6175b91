// Facet counts of a search: how many of the tracks it matches (not just the page) have each
// genre, mood, energy level, instrument, vocals value and tempo band, so a client can show
// "Jazz (12)" beside its filters. Counted in the same pass that ranks.
import { ENERGY_LEVELS } from '../catalog/vocabulary.ts';
import type { TrackFacts } from './track-facts.ts';
import { VOCALS } from './track-facts.ts';

/** Tempo bands of the bpm facet, BPM: [from, to), labelled "80-99"; the last is open. */
export const BPM_FACET_BANDS: [number, number][] = [[0, 60], [60, 80], [80, 100], [100, 120], [120, 140], [140, 160], [160, Infinity]];

export interface Facets {
  genres: Record<string, number>;
  moods: Record<string, number>;
  energy_level: Record<string, number>;
  instruments: Record<string, number>;
  has_vocals: Record<string, number>;
  bpm: Record<string, number>;
}

export function bpmBandLabel([from, to]: [number, number]): string {
  return to === Infinity ? `${from}+` : from === 0 ? `<${to}` : `${from}-${to - 1}`;
}

/** Non-zero counts, largest first, ties by name. */
function named(counts: Int32Array, names: readonly string[]): Record<string, number> {
  const entries = names.map((name, i) => [name, counts[i]] as [string, number]).filter(([, n]) => n > 0);
  entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return Object.fromEntries(entries);
}

export function createFacetCounter(facts: TrackFacts) {
  const genres = new Int32Array(facts.genres.size());
  const moods = new Int32Array(facts.moods.size());
  const instruments = new Int32Array(facts.instruments.size());
  const energy = new Int32Array(ENERGY_LEVELS.length);
  const vocals = new Int32Array(2);
  const bpm = new Int32Array(BPM_FACET_BANDS.length);
  const { genreOf, energyOf, vocalsOf, bpmOf, moodsOf, instrumentsOf } = facts;
  return {
    count(doc: number) {
      if (genreOf.data[doc] >= 0) genres[genreOf.data[doc]]++;
      if (energyOf.data[doc] >= 0) energy[energyOf.data[doc]]++;
      if (vocalsOf.data[doc] !== VOCALS.unknown) vocals[vocalsOf.data[doc]]++;
      const b = bpmOf.data[doc];
      if (b === b) bpm[BPM_FACET_BANDS.findIndex(([from, to]) => b >= from && b < to)]++;
      for (let k = moodsOf.start.data[doc]; k < moodsOf.start.data[doc + 1]; k++) moods[moodsOf.values.data[k]]++;
      for (let k = instrumentsOf.start.data[doc]; k < instrumentsOf.start.data[doc + 1]; k++) instruments[instrumentsOf.values.data[k]]++;
    },
    facets(): Facets {
      const vocalNames = [];
      vocalNames[VOCALS.with] = 'true';
      vocalNames[VOCALS.without] = 'false';
      return {
        genres: named(genres, facts.genres.values()),
        moods: named(moods, facts.moods.values()),
        energy_level: named(energy, ENERGY_LEVELS),
        instruments: named(instruments, facts.instruments.values()),
        has_vocals: named(vocals, vocalNames),
        bpm: named(bpm, BPM_FACET_BANDS.map(bpmBandLabel)),
      };
    },
  };
}
