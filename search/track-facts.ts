// What each document (a track's current version) is, as flat columns indexed by document number:
// its combination of tags (genre, mood set, instrument set, energy, vocals) as one number, its
// tempo, and per filter value the bitset of its documents. Filters select with one AND of
// bitsets; profiles, facets and similarity read the columns. A search visits tens of thousands of
// tracks, and scattered objects would make each a cache miss.
import { ENERGY_LEVELS, type EnergyLevel } from '../catalog/vocabulary.ts';
import type { SearchFilters } from './request.ts';
import { column, float32, int32, push } from './typed-column.ts';
import { createNumbering, type Numbering } from './numbering.ts';
import { createValueBitsets, intersectInto, unionOf, wordsFor, type DocBitset, type ValueBitsets } from './doc-bitsets.ts';

export interface TrackFactsInput {
  genre: string | null;
  moods: string[];
  instruments: string[];
  has_vocals: boolean | null;
  bpm: number | null;
  energy_level: EnergyLevel | null;
}

/** Vocals column values. */
export const VOCALS = { unknown: -1, without: 0, with: 1 } as const;
/** Tempo is also kept as a bin of this many BPM (profiles score tempo by bin, from a table). */
export const BPM_BIN_WIDTH = 0.25;
export const MAX_BPM_BIN = Math.round(300 / BPM_BIN_WIDTH);

/**
 * Distinct sets of values (a track's moods, its instruments), numbered: tracks share far fewer
 * sets than there are tracks, so a search scores each set once instead of each track's list.
 */
function createSetNumbering() {
  const numbering = createNumbering();
  const members: number[][] = [];
  return {
    members,
    /** The set's number; `unordered`: the values are a set (else a tuple, kept in order). */
    number(values: number[], unordered = true): number {
      const sorted = unordered ? [...new Set(values)].sort((a, b) => a - b) : values;
      const n = numbering.number(sorted.join(','));
      if (n === members.length) members.push(sorted);
      return n;
    },
  };
}

export function createTrackFacts() {
  const genres = createNumbering();
  const moods = createNumbering();
  const instruments = createNumbering();
  const bpmOf = column(float32); // NaN: none
  const bpmBinOf = column(int32); // -1: none
  const moodSets = createSetNumbering();
  const instrumentSets = createSetNumbering();
  // A document's tags but tempo as one number: profiles score each distinct combination once.
  const tagSets = createSetNumbering();
  const tagSetOf = column(int32);
  // Documents per genre, mood and instrument number (retired ones too, as the text postings count
  // them until the index is rebuilt): how common each tag is, for catalog-grounding.ts.
  const counts = { genres: [] as number[], moods: [] as number[], instruments: [] as number[] };
  // Documents per filter value (alive: value 0; vocals: VOCALS; energy: its index). A document's
  // values never change: a changed track is a new document.
  const alive = createValueBitsets();
  const genreDocs = createValueBitsets();
  const energyDocs = createValueBitsets();
  const vocalsDocs = createValueBitsets();
  const moodDocs = createValueBitsets();
  const instrumentDocs = createValueBitsets();

  function docsWith(wanted: string[], numbering: Numbering, sets: ValueBitsets, words: number): DocBitset {
    return unionOf(wanted.map((value) => {
      const n = numbering.find(value);
      return n === undefined ? undefined : sets.of(n);
    }), words);
  }

  return {
    genres, moods, instruments,
    bpmOf, bpmBinOf,
    /** The mood numbers of each mood set, the instrument numbers of each instrument set. */
    moodSetMembers: moodSets.members,
    instrumentSetMembers: instrumentSets.members,
    tagSetOf,
    /** Each tag combination as [genre + 1, mood set, instrument set, energy + 1, vocals + 1]. */
    tagSetMembers: tagSets.members,
    counts,
    add(doc: number, t: TrackFactsInput) {
      alive.add(0, doc);
      const genre = t.genre === null ? -1 : genres.number(t.genre);
      const energy = t.energy_level === null ? -1 : ENERGY_LEVELS.indexOf(t.energy_level);
      const vocals = t.has_vocals === null ? VOCALS.unknown : t.has_vocals ? VOCALS.with : VOCALS.without;
      push(bpmOf, t.bpm === null ? NaN : t.bpm);
      const moodNumbers = t.moods.map(moods.number);
      const instrumentNumbers = t.instruments.map(instruments.number);
      const moodSet = moodSets.number(moodNumbers);
      const instrumentSet = instrumentSets.number(instrumentNumbers);
      push(tagSetOf, tagSets.number([genre + 1, moodSet, instrumentSet, energy + 1, vocals + 1], false));
      // Floored: a bin lies wholly in one facet band (their edges are whole BPM).
      push(bpmBinOf, t.bpm === null || !(t.bpm >= 0) ? -1 : Math.min(MAX_BPM_BIN, Math.floor(t.bpm / BPM_BIN_WIDTH)));
      if (genre >= 0) counts.genres[genre] = (counts.genres[genre] ?? 0) + 1;
      for (const m of new Set(moodNumbers)) counts.moods[m] = (counts.moods[m] ?? 0) + 1;
      for (const i of new Set(instrumentNumbers)) counts.instruments[i] = (counts.instruments[i] ?? 0) + 1;
      if (genre >= 0) genreDocs.add(genre, doc);
      if (energy >= 0) energyDocs.add(energy, doc);
      if (vocals !== VOCALS.unknown) vocalsDocs.add(vocals, doc);
      for (const m of moodNumbers) moodDocs.add(m, doc);
      for (const i of instrumentNumbers) instrumentDocs.add(i, doc);
    },
    retire(doc: number) {
      alive.remove(0, doc);
    },
    live: (docs: number): DocBitset => unionOf([alive.of(0)], wordsFor(docs)),
    /**
     * Per tag combination, 1 if every set filter accepts it: these filters read only a track's
     * tags, so filterDocs accepts exactly the live documents of these combinations.
     */
    acceptedTagSets(f: SearchFilters): Uint8Array {
      const numbers = (wanted: string[] | undefined, numbering: Numbering) =>
        wanted && new Set(wanted.map((v) => numbering.find(v)).filter((n) => n !== undefined));
      const genreSet = numbers(f.genres, genres);
      const moodSet = numbers(f.moods, moods);
      const instrumentSet = numbers(f.instruments, instruments);
      const energy = f.energy_level ? ENERGY_LEVELS.indexOf(f.energy_level) : undefined;
      const vocals = f.has_vocals === undefined ? undefined : f.has_vocals ? VOCALS.with : VOCALS.without;
      return Uint8Array.from(tagSets.members, ([g, m, i, e, v]) => Number(
        (!genreSet || genreSet.has(g - 1)) &&
        (!moodSet || moodSets.members[m].some((n) => moodSet.has(n))) &&
        (!instrumentSet || instrumentSets.members[i].some((n) => instrumentSet.has(n))) &&
        (energy === undefined || (energy >= 0 && e - 1 === energy)) &&
        (vocals === undefined || v - 1 === vocals),
      ));
    },
    /** The live documents as a bitset (may be shorter than the documents: missing words are empty); not to be changed. */
    liveDocs: (): DocBitset => alive.of(0) ?? new Uint32Array(0),
    /** The live documents every set filter accepts, but for the BPM range (see inBpmRange). */
    filterDocs(f: SearchFilters, docs: number): DocBitset {
      const words = wordsFor(docs);
      const selected = unionOf([alive.of(0)], words);
      if (f.genres) intersectInto(selected, docsWith(f.genres, genres, genreDocs, words));
      if (f.moods) intersectInto(selected, docsWith(f.moods, moods, moodDocs, words));
      if (f.instruments) intersectInto(selected, docsWith(f.instruments, instruments, instrumentDocs, words));
      if (f.energy_level) intersectInto(selected, unionOf([energyDocs.of(ENERGY_LEVELS.indexOf(f.energy_level))], words));
      if (f.has_vocals !== undefined) intersectInto(selected, unionOf([vocalsDocs.of(f.has_vocals ? VOCALS.with : VOCALS.without)], words));
      return selected;
    },
  };
}

export type TrackFacts = ReturnType<typeof createTrackFacts>;

/** The BPM range of a filter, its ends and its test: null when it sets none (a track without BPM fails any range). */
export function bpmRange(f: SearchFilters): { min: number; max: number; test: (bpm: number) => boolean } | null {
  if (f.min_bpm === undefined && f.max_bpm === undefined) return null;
  const min = f.min_bpm === undefined ? -Infinity : Math.fround(f.min_bpm);
  const max = f.max_bpm === undefined ? Infinity : Math.fround(f.max_bpm);
  return { min, max, test: (bpm) => bpm >= min && bpm <= max }; // NaN fails both
}
