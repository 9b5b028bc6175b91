// The scoring passes of a search over the index's documents (search-index.ts): every accepted
// document one by one (scoreEach, scoreListed), or, for the documents no name matched, one tag
// combination at a time, best first, until no other can reach the page (scoreByTagGroup). A score
// = profile fit (profile-score.ts) + text relevance + name similarity, weighted. Every pass
// computes a document's score by the same expression, so the page does not depend on which pass
// scored a document, and each bound that turns documents away is at least the score it bounds.
import type { DocBitset } from './doc-bitsets.ts';
import { forEachDoc, hasDoc } from './doc-bitsets.ts';
import { firstAbove } from './tag-groups.ts';
import { BPM_BIN_WIDTH, MAX_BPM_BIN } from './track-facts.ts';
import type { TrackFacts } from './track-facts.ts';
import type { ProfileTables } from './profile-score.ts';
import type { TopK } from './top-k.ts';
import type { Scratch } from './scratch.ts';
import type { createFacetCounter } from './facets.ts';
import type { createTextPostings } from './text-postings.ts';
import type { createTagGroups } from './tag-groups.ts';

/**
 * Weights of the three parts of a score, each part in [0, 1]. Profile fit and text fit weigh
 * nearly alike, so neither buries the other: a track that carries the query's distinctive words
 * and one that fits what the query means compete, and one that does both wins.
 */
export const SCORE_WEIGHTS = { profile: 1, text: 0.8, name: 0.6 } as const;

type BpmTest = (bpm: number) => boolean;
/** A filter's BPM range: its ends (infinite where open) and the test a track's BPM must pass (track-facts.ts bpmRange). */
export interface BpmRange {
  min: number;
  max: number;
  test: BpmTest;
}
type FacetCounter = ReturnType<typeof createFacetCounter>;

/** What a pass reads: the index's parts, the query's profile tables, and the page it fills. */
export interface RankingPass {
  facts: TrackFacts;
  text: ReturnType<typeof createTextPostings>;
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
 * What offering one document takes: its score (profile, text, name) worked out only as far as it
 * could still enter the page, then offered. `floor` is what a document must beat (refreshed after
 * each offer); most documents are turned away against it without a call (by score, or on a tie by
 * our ids' numeric order; other ids go to offer).
 */
function createOfferer(pass: RankingPass, textIdeal: number) {
  const { facts, text, tables: t, best } = pass;
  const { sums, similarities } = pass.perDocument;
  const tagSetOf = facts.tagSetOf.data;
  const bpmBinOf = facts.bpmBinOf.data;
  const { tagSet, tempo, usesTempo } = t;
  const idKey = pass.idKeys;
  const state = { floor: -Infinity, floorKey: NaN };
  const refresh = () => {
    const worst = best.worst();
    state.floor = worst === null ? -Infinity : worst.score;
    state.floorKey = worst === null ? NaN : idKey[worst.doc];
  };
  refresh();
  return {
    offer(doc: number) {
      // The profile score (profile-score.ts): its tags' entry, and its tempo's when the query has a tempo.
      let score = SCORE_WEIGHTS.profile * (usesTempo ? tagSet[tagSetOf[doc]] + tempo[bpmBinOf[doc] + 1] : tagSet[tagSetOf[doc]]);
      const s = similarities[doc];
      // The text part is at most its weight: a document that could not enter even with all of it is turned away before it is worked out.
      if (score + SCORE_WEIGHTS.text + SCORE_WEIGHTS.name * s < state.floor) return;
      const sum = sums[doc];
      if (sum !== 0) score += SCORE_WEIGHTS.text * text.score(sum, textIdeal);
      const final = score + SCORE_WEIGHTS.name * s;
      if (final < state.floor || (final === state.floor && idKey[doc] > state.floorKey)) return;
      best.offer(doc, final);
      refresh();
    },
  };
}

/**
 * Scores every document of the bitset (in the BPM range) and offers it; returns how many there
 * were. The bitset walk is written out (not forEachDoc): this loop may visit every track.
 */
export function scoreEach(pass: RankingPass, docs: DocBitset, inRange: BpmTest | null, textIdeal: number): number {
  const bpm = pass.facts.bpmOf.data;
  const offerer = createOfferer(pass, textIdeal);
  let total = 0;
  for (let w = 0; w < docs.length; w++) {
    let bits = docs[w];
    while (bits !== 0) {
      const low = bits & -bits;
      bits ^= low;
      const doc = (w << 5) + 31 - Math.clz32(low);
      if (inRange !== null && !inRange(bpm[doc])) continue;
      total++;
      offerer.offer(doc);
    }
  }
  return total;
}

/** Scores the listed documents that are in the bitset (and the BPM range) and offers them. */
export function scoreListed(pass: RankingPass, list: number[], docs: DocBitset, inRange: BpmTest | null, textIdeal: number) {
  const bpm = pass.facts.bpmOf.data;
  const offerer = createOfferer(pass, textIdeal);
  for (const doc of list) if (hasDoc(docs, doc) && (inRange === null || inRange(bpm[doc]))) offerer.offer(doc);
}

/** The BPM range as tempo bins (track-facts.ts bpmBinOf), a bin wider on each side: every track in the range has a bin in it. */
function binsOf(range: BpmRange): [number, number] {
  const from = range.min >= 0 ? Math.floor(range.min / BPM_BIN_WIDTH) - 1 : -1;
  const to = range.max < MAX_BPM_BIN * BPM_BIN_WIDTH ? Math.floor(range.max / BPM_BIN_WIDTH) + 1 : MAX_BPM_BIN;
  return [from, to];
}

/** The tempo bins whose every track is in the BPM range (a bin b holds BPM b to b + 1 bins' width, ends included; the last bin every BPM beyond). */
function binsWhollyIn(range: BpmRange): [number, number] {
  const from = range.min > 0 ? Math.ceil(range.min / BPM_BIN_WIDTH) : 0;
  const to = range.max === Infinity ? MAX_BPM_BIN : Math.min(MAX_BPM_BIN - 1, Math.floor(range.max / BPM_BIN_WIDTH) - 1);
  return [from, to];
}

/**
 * How many live documents of the accepted tag combinations are in the BPM range (their facets
 * counted too): only the combinations' bins that the range reaches are read, and of a combination
 * without retired documents, the bins wholly in the range are counted without reading them.
 */
export function countInRange(pass: RankingPass, accepted: Uint8Array, range: BpmRange, facets: FacetCounter | null): number {
  const { facts, tagGroups } = pass;
  const live = facts.liveDocs();
  const bpm = facts.bpmOf.data;
  const [fromBin, toBin] = binsOf(range);
  const [fromWhole, toWhole] = binsWhollyIn(range);
  let total = 0;
  const countEach = (docs: Int32Array, from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const doc = docs[i];
      if (!hasDoc(live, doc) || !range.test(bpm[doc])) continue;
      total++;
      if (facets !== null) facets.count(doc);
    }
  };
  for (let group = 0; group < accepted.length; group++) {
    if (accepted[group] === 0) continue;
    const { docs, bins } = tagGroups.byTempo(group, facts.bpmBinOf.data);
    const end = firstAbove(bins, toBin, 0, bins.length);
    const start = firstAbove(bins, fromBin - 1, 0, end);
    if (facets !== null || !tagGroups.allLive(group) || fromWhole > toWhole) {
      countEach(docs, start, end);
      continue;
    }
    const wholeStart = firstAbove(bins, fromWhole - 1, start, end);
    const wholeEnd = firstAbove(bins, toWhole, wholeStart, end);
    countEach(docs, start, wholeStart);
    total += wholeEnd - wholeStart;
    countEach(docs, wholeEnd, end);
  }
  return total;
}

/** A combination's best profile score: its entry, and the best tempo entry when the query has a tempo (the sum a document's score makes). */
function profileBounds(t: ProfileTables): (group: number) => number {
  const { tagSet, tempo, usesTempo } = t;
  let bestTempo = 0;
  if (usesTempo) for (const v of tempo) bestTempo = Math.max(bestTempo, v);
  return (group) => SCORE_WEIGHTS.profile * (usesTempo ? tagSet[group] + bestTempo : tagSet[group]);
}

/**
 * Offers the live documents of the accepted tag combinations that no name matched (scoreListed
 * offers those), in the BPM range if there is one, by combination best first. Such a document's
 * score is its combination's entry, its tempo's entry and its text part; a combination's best is
 * its entry + the best tempo entry + the text part of its largest text sum, so once that is below
 * the page's floor, this combination and every later one are passed over. Within a combination
 * documents are read by tempo bin, and a bin whose entry cannot reach the floor is skipped; where
 * every document of a combination or bin scores alike (no tempo or no text), they are read in id
 * order and the first that cannot enter ends it.
 */
export function scoreByTagGroup(pass: RankingPass, accepted: Uint8Array, range: BpmRange | null, textIdeal: number) {
  const { facts, tagGroups, text, before, tables: t, best } = pass;
  const { sums, similarities, groupTextMax } = pass.perDocument;
  const { tagSet, tempo, usesTempo } = t;
  const live = facts.liveDocs();
  const bpm = facts.bpmOf.data;
  const binOf = facts.bpmBinOf.data;
  const idKey = pass.idKeys;
  const [fromBin, toBin] = range === null ? [-1, MAX_BPM_BIN] : binsOf(range);
  const profileBound = profileBounds(t);
  // Each combination's text part at most, and its best score: the same sums as a document's score, with each part at its most.
  const textPart = new Float64Array(accepted.length);
  const bound = new Float64Array(accepted.length);
  const groups: number[] = [];
  for (let group = 0; group < accepted.length; group++) {
    if (accepted[group] === 0) continue;
    const top = groupTextMax[group];
    textPart[group] = top !== 0 ? SCORE_WEIGHTS.text * text.score(top, textIdeal) : 0;
    bound[group] = profileBound(group) + textPart[group];
    groups.push(group);
  }
  groups.sort((a, b) => bound[b] - bound[a] || a - b);
  let worst = best.worst();
  let floor = worst === null ? -Infinity : worst.score;
  let floorKey = worst === null ? NaN : idKey[worst.doc];
  const offer = (doc: number, score: number) => {
    best.offer(doc, score);
    worst = best.worst();
    if (worst !== null) {
      floor = worst.score;
      floorKey = idKey[worst.doc];
    }
  };
  for (const group of groups) {
    if (bound[group] < floor) break;
    const profile = SCORE_WEIGHTS.profile * tagSet[group];
    if (!usesTempo && textPart[group] === 0 && range === null) {
      // Every document here scores `profile`; in id order, the first that cannot enter ends it.
      for (const doc of tagGroups.docs(group)) {
        if (!hasDoc(live, doc) || similarities[doc] !== 0) continue;
        if (worst !== null && (profile < floor || (profile === floor && !before(doc, worst.doc)))) break;
        offer(doc, profile);
      }
      continue;
    }
    const { docs, bins } = tagGroups.byTempo(group, binOf);
    const end = firstAbove(bins, toBin, 0, bins.length);
    for (let i = firstAbove(bins, fromBin - 1, 0, end); i < end; ) {
      const bin = bins[i];
      const base = usesTempo ? SCORE_WEIGHTS.profile * (tagSet[group] + tempo[bin + 1]) : profile;
      const binEnd = firstAbove(bins, bin, i, end);
      if (base + textPart[group] < floor) {
        i = binEnd; // no document of this bin can enter
        continue;
      }
      if (textPart[group] === 0) {
        // Every document of this bin scores `base`; in id order, the first that cannot enter ends the bin.
        for (; i < binEnd; i++) {
          const doc = docs[i];
          if (!hasDoc(live, doc) || similarities[doc] !== 0 || (range !== null && !range.test(bpm[doc]))) continue;
          if (worst !== null && (base < floor || (base === floor && !before(doc, worst.doc)))) break;
          offer(doc, base);
        }
        i = binEnd;
        continue;
      }
      for (; i < binEnd; i++) {
        const doc = docs[i];
        // The text sum first: most documents are turned away on it, before the other reads.
        let score = base;
        const sum = sums[doc];
        if (sum !== 0) score += SCORE_WEIGHTS.text * text.score(sum, textIdeal);
        if (score < floor || (score === floor && idKey[doc] > floorKey)) continue;
        if (!hasDoc(live, doc) || similarities[doc] !== 0 || (range !== null && !range.test(bpm[doc]))) continue;
        offer(doc, score);
      }
    }
  }
}
