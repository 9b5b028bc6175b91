// The scoring passes of a search over the index's documents (search-index.ts): every accepted
// document one by one (scoreEach), or, for the documents no text or name matched, one tag
// combination at a time, best first, until no other can reach the page (scoreByTagGroup). A score
// = profile fit (profile-score.ts) + text relevance + name similarity, weighted.
import type { DocBitset } from './doc-bitsets.ts';
import { forEachDoc, hasDoc } from './doc-bitsets.ts';
import type { TrackFacts } from './track-facts.ts';
import type { ProfileTables } from './profile-score.ts';
import type { TopK } from './top-k.ts';
import type { Scratch } from './scratch.ts';
import type { createFacetCounter } from './facets.ts';
import type { createTextPostings } from './text-postings.ts';
import type { createNameMatching } from './name-matching.ts';
import type { createTagGroups } from './tag-groups.ts';

/**
 * Weights of the three parts of a score, each part in [0, 1]. Profile fit and text fit weigh
 * nearly alike, so neither buries the other: a track that carries the query's distinctive words
 * and one that fits what the query means compete, and one that does both wins.
 */
export const SCORE_WEIGHTS = { profile: 1, text: 0.8, name: 0.6 } as const;

type BpmTest = (bpm: number) => boolean;
type FacetCounter = ReturnType<typeof createFacetCounter>;

/** What a pass reads: the index's parts, the query's profile tables, and the page it fills. */
export interface RankingPass {
  facts: TrackFacts;
  text: ReturnType<typeof createTextPostings>;
  names: ReturnType<typeof createNameMatching>;
  tagGroups: ReturnType<typeof createTagGroups>;
  perDocument: Scratch;
  /** Our ids' order as numbers, per document (search-index.ts idOrderKey). */
  idKeys: Float64Array;
  /** Ties by id. */
  before: (a: number, b: number) => boolean;
  tables: ProfileTables;
  best: TopK;
}

/** Counts the facets of the accepted documents (in the BPM range). */
export function countFacets(facts: TrackFacts, docs: DocBitset, inRange: BpmTest | null, facets: FacetCounter) {
  const bpm = facts.bpmOf.data;
  forEachDoc(docs, (doc) => {
    if (inRange === null || inRange(bpm[doc])) facets.count(doc);
  });
}

/**
 * Scores every document of the bitset (in the BPM range) and offers it; returns how many there
 * were. The bitset walk is written out (not forEachDoc): this loop may visit every track.
 */
export function scoreEach(pass: RankingPass, docs: DocBitset, inRange: BpmTest | null, textIdeal: number): number {
  const { facts, text, names, tables: t, best } = pass;
  const { sums, similarities } = pass.perDocument;
  // The columns and tables in locals: this loop may visit every track.
  const bpm = facts.bpmOf.data;
  const tagSetOf = facts.tagSetOf.data;
  const bpmBinOf = facts.bpmBinOf.data;
  const { tagSet, tempo, usesTempo } = t;
  const idKey = pass.idKeys;
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
      let s = similarities[doc];
      // The text part is at most its weight and the name part at most its bound: a document that
      // could not enter even with both is turned away before they are worked out.
      if (score + SCORE_WEIGHTS.text + SCORE_WEIGHTS.name * Math.abs(s) < floor) continue;
      const sum = sums[doc];
      if (sum !== 0) score += SCORE_WEIGHTS.text * text.score(sum, textIdeal);
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
export function scoreByTagGroup(pass: RankingPass, docs: DocBitset) {
  const { facts, tagGroups, before, tables: t, best } = pass;
  const { matched } = pass.perDocument;
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
