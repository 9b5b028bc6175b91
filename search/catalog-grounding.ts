// What a concept's own words mean in this catalog: the tags that the tracks carrying a word share
// more often than the catalog at large, learned from the index as it is (no download, current as
// the catalog changes). For each of the words' terms carried by at least MIN_DOCUMENTS and at most
// MAX_SHARE of the documents (common words say nothing about a style), each genre, mood and
// instrument value v weighs p * log(p / q), p the share of the word's tracks that carry v and q
// the share of all tracks: high for tags both frequent among those tracks and distinctive of them
// (the term's share of the KL divergence). Weights are scaled per group to a top of 1, the best
// over the terms kept. query-profile.ts weighs the concept's lexicon values by them, so that
// "christmas" leans on the tracks tagged Christmas or Holiday here more than on every happy track
// the lexicon's guess would also take.
import { LRUCache } from 'lru-cache';
import type { TrackFacts } from './track-facts.ts';
import type { createTextPostings } from './text-postings.ts';

/** A term carried by more than this share of the documents is too common to say what a style is. */
const MAX_SHARE = 0.1;
/** A term on fewer documents than this is too rare to learn from. */
const MIN_DOCUMENTS = 3;
/** Terms whose weights are kept between searches. */
const CACHED_TERMS = 10_000;
/** A tag seen with a term fewer times than this is chance. */
const MIN_TOGETHER = 2;
/** A term's tags are counted over at most this many of its documents (its first): shares are as good, and a search stays quick. */
const MAX_COUNTED = 2000;
type Group = 'genres' | 'moods' | 'instruments';

/** Per catalog value number of each group, in [0, 1]. */
export type GroundedWeights = Record<Group, Float32Array>;

function countTogether(term: string, text: ReturnType<typeof createTextPostings>, facts: TrackFacts): { together: Record<Group, Map<number, number>>; counted: number } {
  const together = { genres: new Map<number, number>(), moods: new Map<number, number>(), instruments: new Map<number, number>() };
  const tagSetOf = facts.tagSetOf.data;
  const add = (map: Map<number, number>, value: number) => map.set(value, (map.get(value) ?? 0) + 1);
  let counted = 0;
  text.forEachDocOf(term, (doc) => {
    const [genre, moodSet, instrumentSet] = facts.tagSetMembers[tagSetOf[doc]];
    if (genre > 0) add(together.genres, genre - 1);
    for (const m of facts.moodSetMembers[moodSet]) add(together.moods, m);
    for (const i of facts.instrumentSetMembers[instrumentSet]) add(together.instruments, i);
    return ++counted < MAX_COUNTED;
  });
  return { together, counted };
}

/** Per value of a group, p log(p / q) where positive, scaled to a top of 1, kept if above `into`. */
function weighInto(into: Float32Array, together: Map<number, number>, termDocs: number, counts: number[], documents: number) {
  const weights = new Map<number, number>();
  let top = 0;
  for (const [value, c] of together) {
    if (c < MIN_TOGETHER) continue;
    const p = c / termDocs;
    const q = counts[value] / documents;
    if (p <= q) continue;
    const w = p * Math.log(p / q);
    weights.set(value, w);
    top = Math.max(top, w);
  }
  for (const [value, w] of weights) into[value] = Math.max(into[value], w / top);
}

/** What one term grounds in this catalog, or null when it is too common or too rare to learn from. */
function termWeights(term: string, text: ReturnType<typeof createTextPostings>, facts: TrackFacts): GroundedWeights | null {
  const documents = text.documents();
  const termDocs = text.documentCount(term);
  if (termDocs < MIN_DOCUMENTS || termDocs > MAX_SHARE * documents) return null;
  const groups = { genres: new Float32Array(facts.genres.size()), moods: new Float32Array(facts.moods.size()), instruments: new Float32Array(facts.instruments.size()) };
  const { together, counted } = countTogether(term, text, facts);
  for (const group of ['genres', 'moods', 'instruments'] as const) weighInto(groups[group], together[group], counted, facts.counts[group], documents);
  return groups;
}

/**
 * What terms ground in the index's catalog, each term's weights kept until the catalog changes
 * (`changed`), so that a term is counted once per version of the catalog, not once per search.
 */
export function createCatalogGrounding(text: ReturnType<typeof createTextPostings>, facts: TrackFacts) {
  const byTerm = new LRUCache<string, { weights: GroundedWeights | null }>({ max: CACHED_TERMS });
  return {
    changed: () => byTerm.clear(),
    /** The best weight per value over the terms, or null when none grounds. */
    weights(terms: string[]): GroundedWeights | null {
      const grounded: GroundedWeights[] = [];
      for (const term of terms) {
        let cached = byTerm.get(term);
        if (cached === undefined) byTerm.set(term, (cached = { weights: termWeights(term, text, facts) }));
        if (cached.weights !== null) grounded.push(cached.weights);
      }
      if (grounded.length === 0) return null;
      const best = (group: Group) => grounded[0][group].map((_, i) => Math.max(...grounded.map((w) => w[group][i])));
      return { genres: best('genres'), moods: best('moods'), instruments: best('instruments') };
    },
  };
}
