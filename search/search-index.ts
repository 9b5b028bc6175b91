// The in-memory search index: each track's text postings (text-postings.ts), name trigrams
// (name-matching.ts) and facts (track-facts.ts), as flat columns indexed by document number. A
// search scores every track its filters accept when the query has an understood concept or asks
// for anything ("music"), and only the text and name matches otherwise: score = how well the
// track's profile fits the concepts (profile-score.ts) + its text relevance + its name
// similarity; the best `want` (at least DIVERSITY_POOL) are kept in a bounded heap (top-k.ts),
// ties by id, and the page is reordered for variety (diverse-page.ts). Every filter but a BPM
// range is a set of tag combinations, so a search over every accepted track visits tag
// combinations best first and stops where none left can reach the page (ranking-passes.ts); its
// total and facets are counted per combination. A changed track is
// appended as a new document and its old one retired; text statistics (BM25, catalog grounding)
// count retired documents until the index is rebuilt (live-index.ts), which bounds them.
import type { EnergyLevel } from '../catalog/vocabulary.ts';
import type { SearchFilters } from './request.ts';
import type { UnderstoodConcept } from './understand.ts';
import { createTextPostings } from './text-postings.ts';
import { createNameMatching } from './name-matching.ts';
import { bpmRange, createTrackFacts } from './track-facts.ts';
import { compileConcepts, type ValueMeaning } from './query-profile.ts';
import { profileTables, type ProfileTables } from './profile-score.ts';
import { countFacets, countInRange, scoreByTagGroup, scoreEach, scoreListed } from './ranking-passes.ts';
import { createTagGroups } from './tag-groups.ts';
import { createFacetCounter, createFacetTallies, type Facets } from './facets.ts';
import { createScratch } from './scratch.ts';
import { createTopK, type TopK } from './top-k.ts';
import { countDocs, forEachDoc, intersectInto } from './doc-bitsets.ts';
import { column, float64, int32, push } from './typed-column.ts';
import { createNumbering } from './numbering.ts';
import { diversePage, DIVERSITY_POOL, type PageCandidate } from './diverse-page.ts';
import { createSimilarity } from './similarity.ts';
import { createCatalogGrounding } from './catalog-grounding.ts';
import { tagPhraseTerms } from './tag-phrases.ts';

type FacetCounter = ReturnType<typeof createFacetCounter>;

export interface IndexedTrack {
  id: string;
  /** search_document::text */
  document: string;
  /** search_names: lower-cased title and artist */
  names: string;
  artist: string;
  genre: string | null;
  subgenres: string[];
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
  /** Per concept, the terms of its own words (catalog-grounding.ts); none: not grounded. */
  conceptTerms?: string[][];
  /** The query asks for any music ("music", "songs"): every track the filters accept ranks. */
  anything: boolean;
  filters: SearchFilters;
  want: number;
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
  const tallies = createFacetTallies();
  const grounding = createCatalogGrounding(text, facts);
  const artists = createNumbering();
  const artistOf = column(int32);
  let deadCount = 0;

  function upsert(track: IndexedTrack) {
    grounding.changed();
    const previous = docOf.get(track.id);
    if (previous !== undefined) {
      facts.retire(previous);
      tallies.add(facts.tagSetOf.data[previous], facts.bpmBinOf.data[previous], -1);
      tagGroups.retire(facts.tagSetOf.data[previous]);
      deadCount++;
      docOf.delete(track.id);
    }
    if (track.removed) return;
    const doc = ids.length;
    ids.push(track.id);
    push(idKeys, idOrderKey(track.id));
    summaries.push(track.summary);
    push(artistOf, artists.number(track.artist));
    docOf.set(track.id, doc);
    facts.add(doc, track);
    tagGroups.add(doc, facts.tagSetOf.data[doc]);
    tallies.add(facts.tagSetOf.data[doc], facts.bpmBinOf.data[doc], 1);
    similarity.add(doc, track.key, track.timbre);
    names.add(doc, track.names);
    text.add(doc, track.document, tagPhraseTerms([...(track.genre ? [track.genre] : []), ...track.subgenres, ...track.moods, ...track.instruments]));
    scratchSpace.grow(ids.length);
    scratchSpace.growGroups(tagGroups.count());
  }

  /**
   * Offers the documents the filters accept (all of them, or only the matched ones) to `best`;
   * returns how many there are. With a concept or "anything", the tag combinations are visited
   * best first until no other can reach the page, and the documents a name matched are scored
   * one by one; otherwise (or `exhaustive`: the reference the pruned passes are tested against)
   * every accepted document is scored.
   */
  function rank(q: IndexQuery, tables: ProfileTables, best: TopK, facets: FacetCounter | null, exhaustive: boolean): number {
    const { perDocument: scratch } = scratchSpace;
    const everything = q.anything || q.concepts.length > 0;
    const range = bpmRange(q.filters);
    const pass = { facts, text, perDocument: scratch, idKeys: idKeys.data, before, tagGroups, tables, best };
    if (!everything || exhaustive) {
      const textIdeal = text.sum(q.terms, scratch, null);
      const docs = facts.filterDocs(q.filters, ids.length);
      if (!everything) intersectInto(docs, scratch.matched);
      if (facets !== null) countFacets(facts, docs, range?.test ?? null, facets);
      return scoreEach(pass, docs, range?.test ?? null, textIdeal);
    }
    const docs = facts.filterDocs(q.filters, ids.length);
    const accepted = facts.acceptedTagSets(q.filters);
    let total: number;
    if (range !== null) total = countInRange(pass, accepted, range, facets);
    else {
      total = countDocs(docs);
      if (facets !== null) accepted.forEach((yes, group) => yes && facets.countTally(group, tallies.of(group)!));
    }
    const textIdeal = text.sum(q.terms, scratch, facts.tagSetOf.data);
    // The named ones first (the combinations' pass passes over them): they are few, and a name
    // that matches usually puts them on the page, which raises its floor before the combinations.
    scoreListed(pass, scratch.named, docs, range?.test ?? null, textIdeal);
    scoreByTagGroup(pass, accepted, range, textIdeal);
    return total;
  }

  // Ties by id: by number where both ids are ours and differ there, by the strings otherwise.
  const before = (a: number, b: number) => {
    const ka = idKeys.data[a];
    const kb = idKeys.data[b];
    return ka === kb || ka !== ka || kb !== kb ? ids[a] < ids[b] : ka < kb;
  };
  const ranking = (top: PageCandidate[], total: number, facets: FacetCounter | null): Ranking => ({
    total,
    top: top.map(({ doc }) => ({ id: ids[doc], summary: summaries[doc] })),
    ...(facets ? { facets: facets.facets() } : {}),
  });
  const genreOf = (doc: number) => facts.tagSetMembers[facts.tagSetOf.data[doc]][0] - 1;

  /**
   * Ranks the tracks the query's filters accept. A query that prefers some tracks (a concept or a
   * text term) gets a diverse page (diverse-page.ts); one for any music lists by score and id.
   * `exhaustive` scores every accepted track: the same page, slower (tests compare the two).
   */
  function search(q: IndexQuery, exhaustive = false): Ranking {
    const { perDocument: scratch } = scratchSpace;
    const grounded = (i: number) => (q.conceptTerms?.[i]?.length ? grounding.weights(q.conceptTerms[i]) : null);
    const tables = profileTables(compileConcepts(q.concepts, facts, meaning, grounded), facts);
    const diverse = q.concepts.length > 0 || q.terms.length > 0;
    try {
      names.match(q.nameTrigrams, facts.liveDocs(), scratch);
      const best = createTopK(diverse ? Math.max(q.want, DIVERSITY_POOL) : q.want, before);
      const facets = q.facets ? createFacetCounter(facts) : null;
      const total = rank(q, tables, best, facets, exhaustive);
      const sorted = best.sorted();
      const page = diverse ? diversePage(sorted, genreOf, (doc) => artistOf.data[doc]) : sorted;
      return ranking(page.slice(0, q.want), total, facets);
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
    const likeness = similarity.to(of);
    let total = 0;
    forEachDoc(facts.live(ids.length), (doc) => {
      if (doc === of) return;
      total++;
      best.offer(doc, likeness(doc));
    });
    return ranking(best.sorted(), total, null);
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
