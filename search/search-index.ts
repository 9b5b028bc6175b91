// The in-memory search index: each track's text postings (text-postings.ts), name trigrams
// (name-matching.ts) and facts (track-facts.ts), as flat columns indexed by document number. A
// search scores every track its filters accept when the query has an understood concept or asks
// for anything ("music"), and only the text and name matches otherwise: score = how well the
// track's profile fits the concepts (profile-score.ts) + its text relevance + its name
// similarity; the best `want` are kept in a bounded heap (top-k.ts), ties by id. A changed track
// is appended as a new document and its old one retired.
import type { EnergyLevel } from '../catalog/vocabulary.ts';
import type { SearchFilters } from './request.ts';
import type { UnderstoodConcept } from './understand.ts';
import { createTextPostings } from './text-postings.ts';
import { createNameMatching } from './name-matching.ts';
import { bpmRangeTest, createTrackFacts } from './track-facts.ts';
import { compileConcepts, type ValueMeaning } from './query-profile.ts';
import { profileTables, type ProfileTables } from './profile-score.ts';
import { createTagGroups } from './tag-groups.ts';
import { createFacetCounter, type Facets } from './facets.ts';
import { createScratch } from './scratch.ts';
import { createTopK, type TopK } from './top-k.ts';
import { countDocs, hasDoc, intersectInto, unionOf, type DocBitset } from './doc-bitsets.ts';
import { column, float64, push } from './typed-column.ts';
import { createSimilarity } from './similarity.ts';

export interface IndexedTrack {
  id: string;
  /** search_document::text */
  document: string;
  /** search_names: lower-cased title and artist */
  names: string;
  genre: string | null;
  moods: string[];
  instruments: string[];
  has_vocals: boolean | null;
  bpm: number | null;
  key: string | null;
  energy_level: EnergyLevel | null; // the column's CHECK keeps it to these
  /** Timbre statistics from the analysis (engine/analysis/timbre.ts); null before they existed. */
  timbre: number[] | null;
  removed: boolean;
  /** The track as a search result shows it, as JSON: kept as one string, which the GC need not trace. */
  summary: string;
}

export interface IndexQuery {
  /** Text terms (stemmed), each matched as a prefix. */
  terms: string[];
  nameTrigrams: Set<string>;
  concepts: UnderstoodConcept[];
  /** The query asks for any music ("music", "songs"): every track the filters accept ranks. */
  anything: boolean;
  filters: SearchFilters;
  want: number;
  /** Intent's fallback: ranked the same way when `filters` match nothing. */
  fallback?: SearchFilters;
  facets?: boolean;
}

export interface Ranking {
  total: number;
  top: RankedTrack[];
  facets?: Facets;
}

export interface RankedTrack {
  id: string;
  summary: string;
}

/** Weights of the three parts of a score. A full profile fit outweighs any text match; a name typed right outweighs both. */
export const SCORE_WEIGHTS = { profile: 1, text: 0.4, name: 0.6 } as const;
/** Text rank at which the text part reaches 63% of its weight (ts_rank of one title word is ~0.1-0.3). */
const TEXT_RANK_SCALE = 0.1;

const OUR_ID = /^trk_[0-9a-f]{16}$/;

/**
 * A number in the order of our ids' strings (trk_ + 16 lower-case hex: the first 13 digits, which
 * a double holds exactly), or NaN for any other id. Ties in a search visit every track, and
 * comparing numbers is much cheaper than comparing strings.
 */
export function idOrderKey(id: string): number {
  return OUR_ID.test(id) ? parseInt(id.slice(4, 17), 16) : NaN;
}

export function createSearchIndex(meaning: ValueMeaning) {
  const ids: string[] = [];
  const idKeys = column(float64); // our ids' order as a number (see idOrderKey)
  const summaries: string[] = [];
  const docOf = new Map<string, number>();
  const text = createTextPostings();
  const names = createNameMatching();
  const facts = createTrackFacts();
  const similarity = createSimilarity(facts);
  const scratchSpace = createScratch();
  const tagGroups = createTagGroups((a, b) => before(a, b));
  let deadCount = 0;

  function upsert(track: IndexedTrack) {
    const previous = docOf.get(track.id);
    if (previous !== undefined) {
      facts.retire(previous);
      deadCount++;
      docOf.delete(track.id);
    }
    if (track.removed) return;
    const doc = ids.length;
    ids.push(track.id);
    push(idKeys, idOrderKey(track.id));
    summaries.push(track.summary);
    docOf.set(track.id, doc);
    facts.add(doc, track);
    tagGroups.add(doc, facts.tagSetOf.data[doc]);
    similarity.add(doc, track.key, track.timbre);
    names.add(doc, track.names);
    text.add(doc, track.document);
    scratchSpace.grow(ids.length);
  }

  /**
   * Offers the documents the filters accept (all of them, or only the matched ones) to `best`;
   * returns how many there are. With a concept or "anything" and no tempo range, the matched
   * documents are scored one by one and the others by tag combination, best first, until no
   * other can reach the page; otherwise every accepted document is scored.
   */
  function rank(q: IndexQuery, filters: SearchFilters, everything: boolean, best: TopK, facets: ReturnType<typeof createFacetCounter> | null): number {
    const docs = facts.filterDocs(filters, ids.length);
    if (!everything) intersectInto(docs, scratchSpace.scratch.matched);
    const inRange = bpmRangeTest(filters);
    const tables = profileTables(compileConcepts(q.concepts, facts, meaning), facts);
    if (facets !== null) countFacets(docs, inRange, facets);
    if (!everything || inRange !== null) return scoreEach(docs, inRange, q.terms.length, tables, best);
    const total = countDocs(docs);
    const matchedDocs = unionOf([docs], docs.length);
    intersectInto(matchedDocs, scratchSpace.scratch.matched);
    scoreEach(matchedDocs, null, q.terms.length, tables, best);
    scoreByTagGroup(docs, tables, best);
    return total;
  }

  function countFacets(docs: DocBitset, inRange: ((bpm: number) => boolean) | null, facets: ReturnType<typeof createFacetCounter>) {
    const bpm = facts.bpmOf.data;
    for (let w = 0; w < docs.length; w++) {
      let bits = docs[w];
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const doc = (w << 5) + 31 - Math.clz32(low);
        if (inRange === null || inRange(bpm[doc])) facets.count(doc);
      }
    }
  }

  /** Scores every document of the bitset (in the BPM range) and offers it; returns how many there were. */
  function scoreEach(docs: DocBitset, inRange: ((bpm: number) => boolean) | null, termCount: number, t: ProfileTables, best: TopK): number {
    const { sums, similarities } = scratchSpace.scratch;
    // The columns and tables in locals: this loop may visit every track.
    const bpm = facts.bpmOf.data;
    const tagSetOf = facts.tagSetOf.data;
    const bpmBinOf = facts.bpmBinOf.data;
    const { tagSet, tempo, usesTempo } = t;
    const idKey = idKeys.data;
    // What a document must beat to enter the page, once it is full: most are turned away here,
    // without a call (by score, or on a tie by our ids' numeric order; other ids go to offer).
    let worst = best.worst();
    let floor = worst === null ? -Infinity : worst.score;
    let floorKey = worst === null ? NaN : idKey[worst.doc];
    let total = 0;
    for (let w = 0; w < docs.length; w++) {
      let bits = docs[w];
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const doc = (w << 5) + 31 - Math.clz32(low);
        if (inRange !== null && !inRange(bpm[doc])) continue;
        total++;
        // The profile score (profile-score.ts): its tags' entry, and its tempo's when the query has a tempo.
        let score = SCORE_WEIGHTS.profile * (usesTempo ? tagSet[tagSetOf[doc]] + tempo[bpmBinOf[doc] + 1] : tagSet[tagSetOf[doc]]);
        const sum = sums[doc];
        if (sum !== 0) score += SCORE_WEIGHTS.text * (1 - Math.exp(-text.rank(doc, sum, termCount) / TEXT_RANK_SCALE));
        let s = similarities[doc];
        if (s < 0) {
          // Deferred (name-matching.ts): -s bounds it, so the exact one is needed only if the bound would enter.
          if (!best.accepts(doc, score + SCORE_WEIGHTS.name * -s)) continue;
          s = similarities[doc] = names.similarity(doc);
        }
        const final = score + SCORE_WEIGHTS.name * s;
        if (final < floor || (final === floor && idKey[doc] > floorKey)) continue;
        best.offer(doc, final);
        worst = best.worst();
        if (worst !== null) {
          floor = worst.score;
          floorKey = idKey[worst.doc];
        }
      }
    }
    return total;
  }

  /**
   * Offers the accepted documents that matched no text or name, by tag combination best first:
   * their score is their profile alone, so once a combination's best (its tags' entry plus the
   * best tempo entry) is below the page's floor, no later one can enter.
   */
  function scoreByTagGroup(docs: DocBitset, t: ProfileTables, best: TopK) {
    const { matched } = scratchSpace.scratch;
    const { tagSet, tempo, usesTempo } = t;
    const bpmBinOf = facts.bpmBinOf.data;
    let bestTempo = 0;
    if (usesTempo) for (const v of tempo) bestTempo = Math.max(bestTempo, v);
    const order = Array.from(tagSet.keys()).sort((a, b) => tagSet[b] - tagSet[a] || a - b);
    let worst = best.worst();
    for (const group of order) {
      const profile = SCORE_WEIGHTS.profile * tagSet[group];
      if (worst !== null && profile + SCORE_WEIGHTS.profile * bestTempo < worst.score) break;
      for (const doc of tagGroups.docs(group)) {
        if (!hasDoc(docs, doc) || hasDoc(matched, doc)) continue;
        const score = usesTempo ? profile + SCORE_WEIGHTS.profile * tempo[bpmBinOf[doc] + 1] : profile;
        if (worst !== null && (score < worst.score || (score === worst.score && !before(doc, worst.doc)))) {
          if (!usesTempo) break; // the rest of this combination score alike, with larger ids
          continue;
        }
        best.offer(doc, score);
        worst = best.worst();
      }
    }
  }

  // Ties by id: by number where both ids are ours and differ there, by the strings otherwise.
  const before = (a: number, b: number) => {
    const ka = idKeys.data[a];
    const kb = idKeys.data[b];
    return ka === kb || ka !== ka || kb !== kb ? ids[a] < ids[b] : ka < kb;
  };
  const ranking = (best: TopK, total: number, facets: ReturnType<typeof createFacetCounter> | null): Ranking => ({
    total,
    top: best.sorted().map(({ doc }) => ({ id: ids[doc], summary: summaries[doc] })),
    ...(facets ? { facets: facets.facets() } : {}),
  });

  function search(q: IndexQuery): Ranking & { fallback?: Ranking } {
    const { scratch } = scratchSpace;
    text.sum(q.terms, scratch);
    names.match(q.nameTrigrams, facts.live(ids.length), scratch);
    const everything = q.anything || q.concepts.length > 0;
    try {
      const best = createTopK(q.want, before);
      const facets = q.facets ? createFacetCounter(facts) : null;
      const total = rank(q, q.filters, everything, best, facets);
      if (!q.fallback || total > 0) return ranking(best, total, facets);
      const bestFallback = createTopK(q.want, before);
      const fallbackFacets = q.facets ? createFacetCounter(facts) : null;
      const fallback = ranking(bestFallback, rank(q, q.fallback, everything, bestFallback, fallbackFacets), fallbackFacets);
      return { ...ranking(best, total, facets), fallback };
    } finally {
      scratchSpace.clear(ids.length);
      names.finish();
    }
  }

  /** The tracks most like a track (never itself), or null if it is not in the index. */
  function similar(id: string, want: number): Ranking | null {
    const of = docOf.get(id);
    if (of === undefined) return null;
    const best = createTopK(want, before);
    const live = facts.live(ids.length);
    const likeness = similarity.to(of);
    let total = 0;
    for (let doc = 0; doc < ids.length; doc++) {
      if (doc === of || !hasDoc(live, doc)) continue;
      total++;
      best.offer(doc, likeness(doc));
    }
    return ranking(best, total, null);
  }

  return {
    upsert,
    search,
    similar,
    /** Mood and instrument values the catalog uses (filters accept them beyond the spec's lists). */
    catalogValues: () => ({ moods: facts.moods.values(), instruments: facts.instruments.values() }),
    live: () => docOf.size,
    dead: () => deadCount,
  };
}

export type SearchIndex = ReturnType<typeof createSearchIndex>;
