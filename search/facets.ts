// Facet counts of a search: how many of the tracks it matches (not just the page) have each
// genre, mood, energy level, instrument, vocals value and tempo band, so a client can show
// "Jazz (12)" beside its filters. Counted in the same pass that ranks: per track, one count for
// its tag combination and one for its tempo band; the combinations are expanded at the end.
import { ENERGY_LEVELS } from '../catalog/vocabulary.ts';
import { BPM_BIN_WIDTH, MAX_BPM_BIN, VOCALS, type TrackFacts } from './track-facts.ts';

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

/** The facet band of each tempo bin (track-facts.ts), shifted by one: 0 is "no tempo". */
const BAND_OF_BIN = Int32Array.from({ length: MAX_BPM_BIN + 2 }, (_, shifted) => {
  const bpm = (shifted - 1) * BPM_BIN_WIDTH;
  return shifted === 0 ? -1 : BPM_FACET_BANDS.findIndex(([from, to]) => bpm >= from && bpm < to);
});

/** Non-zero counts, largest first, ties by name. */
function named(counts: Int32Array, names: readonly string[]): Record<string, number> {
  const entries = names.map((name, i) => [name, counts[i]] as [string, number]).filter(([, n]) => n > 0);
  entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return Object.fromEntries(entries);
}

/**
 * Live documents per tag combination and tempo band (band + 1; 0: no tempo), kept as documents
 * come and go: every filter but a BPM range is a set of tag combinations, so without a range a
 * search's facets are counted per combination, not per track.
 */
export function createFacetTallies() {
  const perTagSet: Int32Array[] = [];
  return {
    /** Counts a document in (delta 1) or out (-1). */
    add(tagSet: number, bpmBin: number, delta: number) {
      (perTagSet[tagSet] ??= new Int32Array(BPM_FACET_BANDS.length + 1))[BAND_OF_BIN[bpmBin + 1] + 1] += delta;
    },
    of: (tagSet: number): Int32Array | undefined => perTagSet[tagSet],
  };
}

export function createFacetCounter(facts: TrackFacts) {
  const perTagSet = new Int32Array(facts.tagSetMembers.length);
  const perBand = new Int32Array(BPM_FACET_BANDS.length);
  const tagSetOf = facts.tagSetOf.data;
  const bpmBinOf = facts.bpmBinOf.data;
  return {
    count(doc: number) {
      perTagSet[tagSetOf[doc]]++;
      const band = BAND_OF_BIN[bpmBinOf[doc] + 1];
      if (band >= 0) perBand[band]++;
    },
    /** Counts a tag combination's live documents at once (a tally of createFacetTallies). */
    countTally(tagSet: number, tally: Int32Array) {
      for (let b = 0; b < tally.length; b++) {
        perTagSet[tagSet] += tally[b];
        if (b > 0) perBand[b - 1] += tally[b];
      }
    },
    facets(): Facets {
      const genres = new Int32Array(facts.genres.size());
      const moods = new Int32Array(facts.moods.size());
      const instruments = new Int32Array(facts.instruments.size());
      const energy = new Int32Array(ENERGY_LEVELS.length);
      const vocals = new Int32Array(2);
      perTagSet.forEach((n, tagSet) => {
        if (n === 0) return;
        const [genre, moodSet, instrumentSet, energyLevel, vocal] = facts.tagSetMembers[tagSet];
        if (genre > 0) genres[genre - 1] += n;
        for (const m of facts.moodSetMembers[moodSet]) moods[m] += n;
        for (const i of facts.instrumentSetMembers[instrumentSet]) instruments[i] += n;
        if (energyLevel > 0) energy[energyLevel - 1] += n;
        if (vocal - 1 !== VOCALS.unknown) vocals[vocal - 1] += n;
      });
      const vocalNames = [];
      vocalNames[VOCALS.with] = 'true';
      vocalNames[VOCALS.without] = 'false';
      return {
        genres: named(genres, facts.genres.values()),
        moods: named(moods, facts.moods.values()),
        energy_level: named(energy, ENERGY_LEVELS),
        instruments: named(instruments, facts.instruments.values()),
        has_vocals: named(vocals, vocalNames),
        bpm: named(perBand, BPM_FACET_BANDS.map(bpmBandLabel)),
      };
    },
  };
}
