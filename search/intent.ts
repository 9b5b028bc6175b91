// Intent extraction (paid tiers): the values a query states outright, read from the concepts
// the lexicon marks as naming a tag ("jazz", "piano", "no vocals", "around 120 bpm"). They rank
// (intentBoost), never exclude: only the filters a caller sends leave tracks out. Feelings,
// scenes and uses ("sad", "wedding video") are not stated values. The intent also reports what
// was understood and what was not.
import type { SearchFilters } from './request.ts';
import type { Understanding } from './understand.ts';
import type { Concept } from './lexicon.ts';

export interface Intent extends SearchFilters {
  /** The phrases understood, as typed ("no vocals" when negated). */
  matched: string[];
  /** Words neither understood nor meaningless ("qwxz"). */
  not_understood: string[];
  /** Words understood through a relative or a correction: { word: typed, as: lexicon phrase }. */
  related: { word: string; as: string }[];
}

/** A concept's value this sure is what the phrase names ("hammond": Organ), not a lean (Soul, Jazz). */
const NAMED_WEIGHT = 1;

/** The values a phrase names outright. */
function namedValues(weights: Map<string, number>): string[] {
  return [...weights].filter(([, w]) => w >= NAMED_WEIGHT).map(([v]) => v);
}

/** What was understood; with `stated`, also the values the query states outright. */
export function intentOf(u: Understanding, stated: boolean): Intent {
  const intent: Intent = {
    matched: u.concepts.map((c) => c.phrase),
    not_understood: u.notUnderstood,
    related: u.concepts.filter((c) => c.via).map((c) => ({ word: c.phrase, as: c.via! })),
  };
  if (!stated) return intent;
  const genres = new Set<string>();
  const instruments = new Set<string>();
  for (const { concept, negated } of u.concepts) {
    if (!concept.filter) continue;
    const { with: withVocals, without } = concept.vocals;
    if (Math.max(withVocals, without) >= NAMED_WEIGHT) intent.has_vocals = (withVocals > without) !== negated;
    if (negated) continue; // "no drums" says what is not wanted: it names no value to lift
    namedValues(concept.genres).forEach((g) => genres.add(g));
    namedValues(concept.instruments).forEach((i) => instruments.add(i));
    for (const range of concept.tempo.filter((r) => r.explicit)) {
      // Within the filters' 40-200 both ends: "210 bpm" asks for the fastest there is, [200, 200].
      intent.min_bpm = Math.min(200, Math.max(40, Math.min(intent.min_bpm ?? Infinity, Math.ceil(range.from))));
      intent.max_bpm = Math.max(40, Math.min(200, Math.max(intent.max_bpm ?? -Infinity, Math.floor(range.to))));
    }
  }
  if (genres.size) intent.genres = [...genres];
  if (instruments.size) intent.instruments = [...instruments];
  return intent;
}

/** The values an intent states, without what it reports. */
function statedValues(intent: Intent): SearchFilters {
  const { matched: _m, not_understood: _n, related: _r, ...stated } = intent;
  return stated;
}

/** Whether the intent states any value. */
export function statesValues(intent: Intent): boolean {
  return Object.values(statedValues(intent)).some((v) => v !== undefined);
}

/**
 * The values an intent states as one concept, ranked with the query's own: tracks that carry them
 * rise, and none is left out (a stated genre's neighbours filed under another parent genre, an
 * instrument tagged by its specific name, stay on the page). Only the request's filters exclude.
 */
export function intentBoost(intent: Intent): Concept {
  const named = (values: string[] | undefined) => new Map((values ?? []).map((v) => [v, 1]));
  const bpm = intent.min_bpm !== undefined || intent.max_bpm !== undefined;
  return {
    name: 'intent',
    genres: named(intent.genres),
    moods: new Map(),
    instruments: named(intent.instruments),
    energy: new Map(),
    tempo: bpm ? [{ from: intent.min_bpm ?? 40, to: (intent.max_bpm ?? 200) + 1e-9, weight: 1, explicit: true }] : [],
    vocals: { with: intent.has_vocals === true ? 1 : 0, without: intent.has_vocals === false ? 1 : 0 },
    filter: false,
  };
}
