// Intent extraction (paid tiers): the filters a query states outright, read from the concepts
// the lexicon marks as naming a tag ("jazz", "piano", "no vocals", "around 120 bpm"). Feelings,
// scenes and uses ("sad", "wedding video") only rank, on every tier: they say what fits best,
// not what to leave out. The intent also reports what was understood and what was not.
import type { SearchFilters } from './request.ts';
import type { Understanding } from './understand.ts';

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

/** What was understood; with `filters`, also the filters the query states outright. */
export function intentOf(u: Understanding, filters: boolean): Intent {
  const intent: Intent = {
    matched: u.concepts.map((c) => c.phrase),
    not_understood: u.notUnderstood,
    related: u.concepts.filter((c) => c.via).map((c) => ({ word: c.phrase, as: c.via! })),
  };
  if (!filters) return intent;
  const genres = new Set<string>();
  const instruments = new Set<string>();
  for (const { concept, negated } of u.concepts) {
    if (!concept.filter) continue;
    const { with: withVocals, without } = concept.vocals;
    if (Math.max(withVocals, without) >= NAMED_WEIGHT) intent.has_vocals = (withVocals > without) !== negated;
    if (negated) continue; // "no drums" cannot be a filter: filters only select
    namedValues(concept.genres).forEach((g) => genres.add(g));
    namedValues(concept.instruments).forEach((i) => instruments.add(i));
    for (const range of concept.tempo.filter((r) => r.explicit)) {
      intent.min_bpm = Math.max(40, Math.min(intent.min_bpm ?? Infinity, Math.ceil(range.from)));
      intent.max_bpm = Math.min(200, Math.max(intent.max_bpm ?? -Infinity, Math.floor(range.to)));
    }
  }
  if (genres.size) intent.genres = [...genres];
  if (instruments.size) intent.instruments = [...instruments];
  return intent;
}

/** The filters of an intent, without what it reports. */
function inferredFilters(intent: Intent): SearchFilters {
  const { matched: _m, not_understood: _n, related: _r, ...inferred } = intent;
  return inferred;
}

/** Explicit filters win field by field; the intent fills the rest. */
export function mergeFilters(explicit: SearchFilters, intent: Intent): SearchFilters {
  const merged: SearchFilters = { ...inferredFilters(intent) };
  for (const [field, value] of Object.entries(explicit)) if (value !== undefined) (merged as Record<string, unknown>)[field] = value;
  if (explicit.min_bpm !== undefined || explicit.max_bpm !== undefined) {
    merged.min_bpm = explicit.min_bpm;
    merged.max_bpm = explicit.max_bpm;
  }
  return merged;
}

/** Whether the intent states any filter. */
export function statesFilters(intent: Intent): boolean {
  return Object.values(inferredFilters(intent)).some((v) => v !== undefined);
}
