// The music lexicon (lexicon.json, data curated by hand): words and phrases people type, each
// mapped to weighted values of our vocabularies (a *concept*), plus the words that mean "any
// music", the words that carry no meaning, and the words that negate. Loaded once and checked
// against the vocabularies, so a misspelt value fails at start (and in the tests), not silently.
import fs from 'node:fs';
import { ENERGY_LEVELS, INSTRUMENTS, MOODS, PARENT_GENRES, type EnergyLevel } from '../catalog/vocabulary.ts';
import { tokens } from './tokens.ts';

/** The tempo words' bands, BPM: [from, to). */
export const TEMPO_BANDS_BPM = { slow: [40, 95], medium: [95, 120], fast: [120, 220] } as const;
export type TempoBand = keyof typeof TEMPO_BANDS_BPM;

/** A tempo preference: BPM in [from, to) fits fully, with `weight`. */
export interface TempoRange { from: number; to: number; weight: number; /** Stated in BPM ("around 120 bpm"), not a tempo word. */ explicit?: boolean }

export interface Concept {
  /** The phrase it is known by (its first). */
  name: string;
  genres: Map<string, number>;
  moods: Map<string, number>;
  instruments: Map<string, number>;
  energy: Map<EnergyLevel, number>;
  tempo: TempoRange[];
  /** with: 1 wants vocals, without: 1 wants none. */
  vocals: { with: number; without: number };
  /** It names a tag directly ("jazz", "piano", "vocals"), so intent extraction may filter by it. */
  filter: boolean;
}

export interface Lexicon {
  /** Phrases (as token lists, longest first) by their first token. */
  phrasesByFirstToken: Map<string, { tokens: string[]; concept: Concept }[]>;
  /** Every token of every phrase: a query word outside it is looked up elsewhere. */
  phraseTokens: Set<string>;
  /** Each phrase (its tokens joined by a space) and its concept. */
  conceptOfPhrase: Map<string, Concept>;
  generic: Set<string>;
  stopwords: Set<string>;
  negations: Set<string>;
  intensifiers: Set<string>;
}

type Weights = Record<string, number>;
interface ConceptEntry {
  phrases: string[];
  genres?: Weights; moods?: Weights; instruments?: Weights; energy?: Weights; tempo?: Weights;
  bpm?: [number, number];
  vocals?: Weights;
  filter?: boolean;
}
interface LexiconFile { generic: string[]; stopwords: string[]; negations: string[]; intensifiers: string[]; concepts: ConceptEntry[] }

const LEXICON_FILE = new URL('./lexicon.json', import.meta.url);

function weights<K extends string>(entry: ConceptEntry, group: keyof ConceptEntry, allowed: readonly string[]): Map<K, number> {
  const raw = (entry[group] ?? {}) as Weights;
  for (const [value, weight] of Object.entries(raw)) {
    if (!allowed.includes(value)) throw new Error(`lexicon: "${entry.phrases[0]}" has unknown ${group} value "${value}"`);
    if (!(weight > 0 && weight <= 1)) throw new Error(`lexicon: "${entry.phrases[0]}" ${group}.${value} weight ${weight} is not in (0, 1]`);
  }
  return new Map(Object.entries(raw)) as Map<K, number>;
}

function tempoRanges(entry: ConceptEntry): TempoRange[] {
  const bands = weights<TempoBand>(entry, 'tempo', Object.keys(TEMPO_BANDS_BPM));
  const ranges: TempoRange[] = [...bands].map(([band, weight]) => ({ from: TEMPO_BANDS_BPM[band][0], to: TEMPO_BANDS_BPM[band][1], weight }));
  if (entry.bpm) ranges.push({ from: entry.bpm[0], to: entry.bpm[1], weight: 1, explicit: true });
  return ranges;
}

export function conceptOf(entry: ConceptEntry): Concept {
  const vocals = weights<'with' | 'without'>(entry, 'vocals', ['with', 'without']);
  return {
    name: entry.phrases[0],
    genres: weights(entry, 'genres', PARENT_GENRES),
    moods: weights(entry, 'moods', MOODS),
    instruments: weights(entry, 'instruments', INSTRUMENTS),
    energy: weights<EnergyLevel>(entry, 'energy', ENERGY_LEVELS),
    tempo: tempoRanges(entry),
    vocals: { with: vocals.get('with') ?? 0, without: vocals.get('without') ?? 0 },
    filter: entry.filter === true,
  };
}

export function buildLexicon(file: LexiconFile): Lexicon {
  const phrasesByFirstToken = new Map<string, { tokens: string[]; concept: Concept }[]>();
  const seen = new Map<string, Concept>();
  for (const entry of file.concepts) {
    const concept = conceptOf(entry);
    for (const phrase of entry.phrases) {
      const phraseTokens = tokens(phrase);
      const key = phraseTokens.join(' ');
      // Two spellings that tokenize alike ("8bit", "8 bit") are one phrase: fine within a concept.
      if (seen.get(key) === concept) continue;
      if (seen.has(key)) throw new Error(`lexicon: phrase "${phrase}" is in two concepts ("${seen.get(key)!.name}", "${concept.name}")`);
      seen.set(key, concept);
      const list = phrasesByFirstToken.get(phraseTokens[0]) ?? [];
      list.push({ tokens: phraseTokens, concept });
      phrasesByFirstToken.set(phraseTokens[0], list);
    }
  }
  for (const list of phrasesByFirstToken.values()) list.sort((a, b) => b.tokens.length - a.tokens.length);
  return {
    phrasesByFirstToken,
    phraseTokens: new Set([...seen.keys()].flatMap((p) => p.split(' '))),
    conceptOfPhrase: seen,
    generic: new Set(file.generic),
    stopwords: new Set(file.stopwords),
    negations: new Set(file.negations),
    intensifiers: new Set(file.intensifiers),
  };
}

let loaded: Lexicon | null = null;

/** The lexicon of lexicon.json (read and checked once). */
export function musicLexicon(): Lexicon {
  loaded ??= buildLexicon(JSON.parse(fs.readFileSync(LEXICON_FILE, 'utf8')) as LexiconFile);
  return loaded;
}

/** The concept a phrase (a whole phrase of the lexicon) names, if any. */
export function conceptNamed(lexicon: Lexicon, phrase: string): Concept | undefined {
  return lexicon.conceptOfPhrase.get(tokens(phrase).join(' '));
}
