// The in-memory search index: for each track, its PostgreSQL tsvector turned into postings (one
// per lexeme, carrying that lexeme's precomputed share of ts_rank), its name as a sequence of
// trigram numbers, and the fields the filters test (each filter value as a bitset of documents).
// A search sums the postings of the query's terms, adds pg_trgm's word similarity for names,
// visits only the documents its filters select (one AND of bitsets), and keeps the best `want` in
// a bounded heap, so its cost grows with the number of matches and not with a sort of them. Scores
// equal the SQL formula ts_rank(search_document, query, 1) + 0.5 * word_similarity(query, search_names).
// Per-track data lives in flat columns (arrays indexed by document number), not objects: a search
// visits tens of thousands of tracks, and scattered objects would make each visit a cache miss.
// A changed track is appended as a new document and its old one marked dead.
import type { SearchFilters } from './request.ts';
import { ENERGY_LEVELS, type EnergyLevel } from '../catalog/vocabulary.ts';
import { addContribution, finishRank, lengthNormaliser, lexemeContribution, parseTsvector } from './text-rank.ts';
import { sequenceSimilarity, trigrams, WORD_SIMILARITY_THRESHOLD } from './trigrams.ts';
import { column, float32, float64, int32, push, type Column } from './typed-column.ts';
import { addDoc, createValueBitsets, hasDoc, intersectInto, unionOf, wordsFor, type DocBitset, type ValueBitsets } from './doc-bitsets.ts';

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
  energy_level: EnergyLevel | null; // the column's CHECK keeps it to these
  removed: boolean;
  /** The track as a search result shows it, as JSON: kept as one string, which the GC need not trace. */
  summary: string;
}

export interface Ranking {
  total: number;
  top: RankedTrack[];
}

export interface RankedTrack {
  id: string;
  summary: string;
}

export interface SearchIndex {
  upsert(track: IndexedTrack): void;
  /**
   * The `want` best matches (score descending, then id) and how many match in all. With
   * `fallback` filters (intent's fallback), also the same for those when `filters` match nothing:
   * worked out in the same pass, and only while `filters` have matched nothing.
   */
  search(terms: string[], nameTrigrams: Set<string>, filters: SearchFilters, want: number, fallback?: SearchFilters): Ranking & { fallback?: Ranking };
  /** Mood and instrument values the catalog uses (filters accept them beyond the spec's lists). */
  catalogValues(): { moods: string[]; instruments: string[] };
  live(): number;
  dead(): number;
}

interface Postings {
  docs: Column<Int32Array>;
  contributions: Column<Float64Array>;
}

/** Strings numbered in order of first sight. */
function createNumbering() {
  const numberOf = new Map<string, number>();
  return {
    number(value: string): number {
      let n = numberOf.get(value);
      if (n === undefined) numberOf.set(value, (n = numberOf.size));
      return n;
    },
    find: (value: string) => numberOf.get(value),
    size: () => numberOf.size,
    values: () => [...numberOf.keys()],
  };
}

/** A list per document, stored flat: document d's values are values[start[d] .. start[d + 1]). */
function createListColumn() {
  const start = column(int32);
  const values = column(int32);
  push(start, 0);
  return {
    start,
    values,
    append(list: number[]) {
      for (const v of list) push(values, v);
      push(start, values.length);
    },
  };
}

export function createSearchIndex(): SearchIndex {
  const ids: string[] = [];
  const summaries: string[] = [];
  const normalisers = column(float64); // of the tsvector's length, for ts_rank
  const genres = createNumbering();
  const moods = createNumbering();
  const instruments = createNumbering();
  // The documents of each filter value (alive: value 0; vocals: 1 with, 0 without; energy: its
  // index in ENERGY_LEVELS). A document's values never change: a changed track is a new document.
  const aliveDocs = createValueBitsets();
  const genreDocs = createValueBitsets();
  const energyDocs = createValueBitsets();
  const vocalsDocs = createValueBitsets();
  const moodDocs = createValueBitsets();
  const instrumentDocs = createValueBitsets();
  const bpmOf = column(float32); // the column is real; NaN: none
  const nameTrigramsOf = createListColumn();
  const docOf = new Map<string, number>();
  const postings = new Map<string, Postings>();
  const trigramNumbers = createNumbering();
  const trigramDocs: Column<Int32Array>[] = [];
  let vocabulary: string[] | null = null; // sorted lexemes; null when a new one arrived
  let deadCount = 0;
  let mostNameTrigrams = 0; // distinct trigrams of the longest name: a longer query matches no name
  // Scratch space of one search, zeroed again after use (searches run one at a time on this thread).
  let sums = new Float64Array(1024);
  let similarities = new Float64Array(1024);
  let matched: DocBitset = new Uint32Array(wordsFor(1024)); // documents with a text sum or a name similarity
  let sharedCounts = new Uint16Array(1024); // query trigrams each name has
  let candidates = new Int32Array(1024); // names on the rarest query trigrams' lists (matchNames)
  let inQuery = new Uint8Array(1024);
  let lastAt = new Int32Array(1024).fill(-1);
  const markedTrigrams: number[] = []; // the query trigrams marked in inQuery: [0, marked)
  let marked = 0;
  let queryDistinctTrigrams = 0;

  function growScratch() {
    if (ids.length > sums.length) {
      sums = new Float64Array(sums.length * 2);
      similarities = new Float64Array(sums.length);
      matched = new Uint32Array(wordsFor(sums.length));
      sharedCounts = new Uint16Array(sums.length);
      candidates = new Int32Array(sums.length);
    }
    if (trigramNumbers.size() > inQuery.length) {
      inQuery = new Uint8Array(Math.max(inQuery.length * 2, trigramNumbers.size()));
      lastAt = new Int32Array(inQuery.length).fill(-1);
    }
  }

  function upsert(track: IndexedTrack) {
    const previous = docOf.get(track.id);
    if (previous !== undefined) {
      aliveDocs.remove(0, previous);
      deadCount++;
      docOf.delete(track.id);
    }
    if (track.removed) return;
    const doc = ids.length;
    ids.push(track.id);
    summaries.push(track.summary);
    aliveDocs.add(0, doc);
    docOf.set(track.id, doc);
    if (track.genre !== null) genreDocs.add(genres.number(track.genre), doc);
    if (track.energy_level !== null) energyDocs.add(ENERGY_LEVELS.indexOf(track.energy_level), doc);
    if (track.has_vocals !== null) vocalsDocs.add(track.has_vocals ? 1 : 0, doc);
    push(bpmOf, track.bpm === null ? NaN : track.bpm);
    for (const mood of track.moods) moodDocs.add(moods.number(mood), doc);
    for (const instrument of track.instruments) instrumentDocs.add(instruments.number(instrument), doc);
    const sequence = trigrams(track.names).map(trigramNumbers.number);
    nameTrigramsOf.append(sequence);
    const distinct = new Set(sequence);
    for (const t of distinct) push((trigramDocs[t] ??= column(int32, 4)), doc);
    mostNameTrigrams = Math.max(mostNameTrigrams, distinct.size);
    const parsed = parseTsvector(track.document);
    push(normalisers, lengthNormaliser(parsed.length));
    for (const { lexeme, weights } of parsed.lexemes) {
      let list = postings.get(lexeme);
      if (!list) {
        postings.set(lexeme, (list = { docs: column(int32, 4), contributions: column(float64, 4) }));
        vocabulary = null;
      }
      push(list.docs, doc);
      push(list.contributions, lexemeContribution(weights));
    }
    growScratch();
  }

  function firstAtOrAfter(sorted: string[], key: string): number {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The documents a filter's values select (OR of the values' sets); values the catalog lacks select none. */
  function docsWith(wanted: string[], numbering: ReturnType<typeof createNumbering>, sets: ValueBitsets, words: number): DocBitset {
    return unionOf(wanted.map((value) => {
      const n = numbering.find(value);
      return n === undefined ? undefined : sets.of(n);
    }), words);
  }

  /** The live documents every set filter accepts, but for the BPM range (tested per match). */
  function filterDocs(f: SearchFilters): DocBitset {
    const words = wordsFor(ids.length);
    const docs = unionOf([aliveDocs.of(0)], words);
    if (f.genres) intersectInto(docs, docsWith(f.genres, genres, genreDocs, words));
    if (f.moods) intersectInto(docs, docsWith(f.moods, moods, moodDocs, words));
    if (f.instruments) intersectInto(docs, docsWith(f.instruments, instruments, instrumentDocs, words));
    if (f.energy_level) intersectInto(docs, unionOf([energyDocs.of(ENERGY_LEVELS.indexOf(f.energy_level))], words));
    if (f.has_vocals !== undefined) intersectInto(docs, unionOf([vocalsDocs.of(f.has_vocals ? 1 : 0)], words));
    return docs;
  }

  /**
   * Offers every matching document the filters accept to `best`, in document order; returns how
   * many there were. Matches are the documents with a text sum or a name similarity.
   */
  function rankMatches(f: SearchFilters, termCount: number, best: ReturnType<typeof createTopK>): number {
    const docs = filterDocs(f);
    intersectInto(docs, matched);
    const minBpm = f.min_bpm === undefined ? -Infinity : Math.fround(f.min_bpm);
    const maxBpm = f.max_bpm === undefined ? Infinity : Math.fround(f.max_bpm);
    const anyBpm = f.min_bpm === undefined && f.max_bpm === undefined;
    const bpm = bpmOf.data;
    const normaliser = normalisers.data;
    let total = 0;
    for (let w = 0; w < docs.length; w++) {
      let bits = docs[w];
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const doc = (w << 5) + 31 - Math.clz32(low);
        const sum = sums[doc];
        if (!anyBpm && !(bpm[doc] >= minBpm && bpm[doc] <= maxBpm)) continue; // NaN fails both
        total++;
        const rank = sum === 0 ? 0 : finishRank(sum, termCount, normaliser[doc]);
        let similarity = similarities[doc];
        if (similarity < 0) {
          // Deferred (matchNames): -similarity bounds it, so the exact one is needed only if the bound would enter.
          if (!best.accepts(doc, rank + 0.5 * -similarity)) continue;
          similarity = similarities[doc] = nameSimilarity(doc);
        }
        best.offer(doc, rank + 0.5 * similarity);
      }
    }
    return total;
  }

  /** Adds every term's postings into sums. */
  function sumTerms(terms: string[]) {
    vocabulary ??= [...postings.keys()].sort();
    const vocab = vocabulary;
    // Every query term is a prefix; terms in sorted order, as ts_rank sums them.
    for (const term of [...terms].sort()) {
      for (let v = firstAtOrAfter(vocab, term); v < vocab.length && vocab[v].startsWith(term); v++) {
        const list = postings.get(vocab[v])!;
        const docs = list.docs.data;
        const contributions = list.contributions.data;
        for (let n = 0; n < list.docs.length; n++) {
          const doc = docs[n];
          sums[doc] = addContribution(sums[doc], contributions[n]);
          addDoc(matched, doc);
        }
      }
    }
  }

  /**
   * Word similarity of every name that reaches the threshold. A name needs at least 60% of the
   * query's trigrams to, so it is on at least one of the rarest (all but 60%, plus one) trigrams'
   * lists: those lists give the candidates, the other lists only add to the candidates' counts,
   * and only a candidate with enough shared trigrams gets the exact (quadratic) computation. A
   * candidate the text matched already needs it only for its score: it gets an upper bound instead
   * (negated, so it reads as deferred), and rankMatches computes the exact one only for a document
   * that bound could bring into the top k. Leaves the query's trigrams marked in inQuery (see
   * search, which unmarks them).
   */
  function matchNames(nameTrigrams: Set<string>) {
    const queryDistinct = nameTrigrams.size;
    const needed = WORD_SIMILARITY_THRESHOLD * queryDistinct - 1e-6;
    if (needed > mostNameTrigrams) return;
    const lists = [...nameTrigrams].map((t) => {
      const n = trigramNumbers.find(t);
      const docs = n === undefined ? undefined : trigramDocs[n];
      return { n: n ?? -1, docs: docs ? docs.data.subarray(0, docs.length) : new Int32Array(0) };
    });
    lists.sort((a, b) => a.docs.length - b.docs.length);
    const rarest = queryDistinct - Math.ceil(needed) + 1;
    const live = aliveDocs.of(0) ?? new Uint32Array(0);
    const counts = sharedCounts;
    let found = 0; // candidates[0, found): each document once (counts[doc] was 0)
    for (let l = 0; l < lists.length; l++) {
      // No name is on the rarest lists (the usual case: queries are seldom titles): the longer,
      // commoner lists cannot add one, so they are not read.
      if (l === rarest && found === 0) return;
      const docs = lists[l].docs;
      if (l < rarest) {
        for (let d = 0; d < docs.length; d++) {
          const doc = docs[d];
          if (hasDoc(live, doc) && counts[doc]++ === 0) candidates[found++] = doc;
        }
      } else {
        for (let d = 0; d < docs.length; d++) if (counts[docs[d]] !== 0) counts[docs[d]]++;
      }
    }
    for (const { n } of lists) if (n >= 0) inQuery[(markedTrigrams[marked++] = n)] = 1;
    queryDistinctTrigrams = queryDistinct;
    for (let c = 0; c < found; c++) {
      const doc = candidates[c];
      if (counts[doc] >= needed) {
        if (hasDoc(matched, doc)) similarities[doc] = -Math.fround(counts[doc] / queryDistinct);
        else {
          const similarity = nameSimilarity(doc);
          if (similarity > 0) {
            similarities[doc] = similarity;
            addDoc(matched, doc);
          }
        }
      }
      counts[doc] = 0;
    }
  }

  /** word_similarity of the query (marked in inQuery) to a document's names; 0 below the threshold. */
  function nameSimilarity(doc: number): number {
    const start = nameTrigramsOf.start.data;
    const similarity = sequenceSimilarity(nameTrigramsOf.values.data, start[doc], start[doc + 1], inQuery, queryDistinctTrigrams, lastAt);
    return similarity >= WORD_SIMILARITY_THRESHOLD ? similarity : 0;
  }

  function search(terms: string[], nameTrigrams: Set<string>, filters: SearchFilters, want: number, fallback?: SearchFilters) {
    sumTerms(terms);
    if (nameTrigrams.size > 0) matchNames(nameTrigrams);
    const before = (a: number, b: number) => ids[a] < ids[b];
    const best = createTopK(want, before);
    const total = rankMatches(filters, terms.length, best);
    const bestFallback = createTopK(want, before);
    const totalFallback = fallback && total === 0 ? rankMatches(fallback, terms.length, bestFallback) : 0;
    sums.fill(0, 0, ids.length);
    similarities.fill(0, 0, ids.length);
    while (marked > 0) inQuery[markedTrigrams[--marked]] = 0;
    matched.fill(0, 0, wordsFor(ids.length));
    const ranking = (heap: typeof best, count: number): Ranking => ({
      total: count,
      top: heap.sorted().map(({ doc }) => ({ id: ids[doc], summary: summaries[doc] })),
    });
    return { ...ranking(best, total), ...(fallback && total === 0 ? { fallback: ranking(bestFallback, totalFallback) } : {}) };
  }

  return {
    upsert,
    search,
    catalogValues: () => ({ moods: moods.values(), instruments: instruments.values() }),
    live: () => docOf.size,
    dead: () => deadCount,
  };
}

/** The k best of a stream by score descending, ties by `before` (a min-heap of the current best). */
function createTopK(k: number, before: (a: number, b: number) => boolean) {
  const docs: number[] = [];
  const scores: number[] = [];
  // worse(i, j): entry i ranks below entry j.
  const worse = (i: number, j: number) => scores[i] < scores[j] || (scores[i] === scores[j] && before(docs[j], docs[i]));
  const swap = (i: number, j: number) => {
    // Not by destructuring: that allocates two arrays per swap, a sixth of a search's garbage.
    const doc = docs[i];
    docs[i] = docs[j];
    docs[j] = doc;
    const score = scores[i];
    scores[i] = scores[j];
    scores[j] = score;
  };
  /** Whether offer(doc, score) would keep it: there is room, or it ranks above the worst kept. */
  function accepts(doc: number, score: number): boolean {
    if (docs.length < k) return k > 0;
    return !(score < scores[0] || (score === scores[0] && !before(doc, docs[0])));
  }
  function siftDown(i: number) {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < docs.length && worse(l, w)) w = l;
      if (r < docs.length && worse(r, w)) w = r;
      if (w === i) return;
      swap(i, w);
      i = w;
    }
  }
  return {
    offer(doc: number, score: number) {
      if (k <= 0) return;
      if (docs.length < k) {
        docs.push(doc);
        scores.push(score);
        for (let i = docs.length - 1; i > 0; ) {
          const parent = (i - 1) >> 1;
          if (!worse(i, parent)) break;
          swap(i, parent);
          i = parent;
        }
        return;
      }
      if (!accepts(doc, score)) return;
      // Replace the worst kept entry.
      docs[0] = doc;
      scores[0] = score;
      siftDown(0);
    },
    accepts,
    sorted() {
      const order = docs.map((_, i) => i).sort((i, j) => (worse(i, j) ? 1 : worse(j, i) ? -1 : 0));
      return order.map((i) => ({ doc: docs[i], score: scores[i] }));
    },
  };
}
