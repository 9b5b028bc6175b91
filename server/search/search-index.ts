// The in-memory search index: for each track, its PostgreSQL tsvector turned into postings (one
// per lexeme, carrying that lexeme's precomputed share of ts_rank), its name trigrams, and the
// fields the filters test. A search sums the postings of the query's terms, adds pg_trgm's word
// similarity for names, filters, and keeps the best `want` in a bounded heap, so its cost grows
// with the number of matches and not with a sort of them. Scores equal the SQL formula
// ts_rank(search_document, query, 1) + 0.5 * word_similarity(query, search_names).
// A changed track is appended as a new document and its old one marked dead.
import type { SearchFilters } from './validate.ts';
import { addContribution, finishRank, lexemeContribution, parseTsvector } from './text-rank.ts';
import { trigrams, wordSimilarity, WORD_SIMILARITY_THRESHOLD } from './trigrams.ts';

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
  energy_level: string | null;
  removed: boolean;
}

export interface RankedTrack {
  id: string;
  score: number;
}

export interface SearchIndex {
  upsert(track: IndexedTrack): void;
  /** The `want` best matches (score descending, then id) and how many match in all. */
  search(terms: string[], nameTrigrams: Set<string>, filters: SearchFilters, want: number): { total: number; top: RankedTrack[] };
  live(): number;
  dead(): number;
}

interface Postings {
  docs: number[];
  contributions: number[];
}

export function createSearchIndex(): SearchIndex {
  const ids: string[] = [];
  const alive: boolean[] = [];
  const lengths: number[] = [];
  const names: string[] = [];
  const fields: Omit<IndexedTrack, 'id' | 'document' | 'names' | 'removed'>[] = [];
  const docOf = new Map<string, number>();
  const postings = new Map<string, Postings>();
  const trigramDocs = new Map<string, number[]>();
  let vocabulary: string[] | null = null; // sorted lexemes; null when a new one arrived
  let deadCount = 0;
  // Scratch space of one search, reset after use (searches run one at a time on this thread).
  let sums = new Float64Array(1024);
  let similarities = new Float64Array(1024);
  let trigramCounts = new Uint16Array(1024);

  function grow() {
    if (ids.length <= sums.length) return;
    const size = sums.length * 2;
    sums = new Float64Array(size);
    similarities = new Float64Array(size);
    trigramCounts = new Uint16Array(size);
  }

  function upsert(track: IndexedTrack) {
    const previous = docOf.get(track.id);
    if (previous !== undefined) {
      alive[previous] = false;
      deadCount++;
      docOf.delete(track.id);
    }
    if (track.removed) return;
    const doc = ids.length;
    ids.push(track.id);
    alive.push(true);
    names.push(track.names);
    fields.push({ genre: track.genre, moods: track.moods, instruments: track.instruments, has_vocals: track.has_vocals, bpm: track.bpm, energy_level: track.energy_level });
    docOf.set(track.id, doc);
    const parsed = parseTsvector(track.document);
    lengths.push(parsed.length);
    for (const { lexeme, weights } of parsed.lexemes) {
      let list = postings.get(lexeme);
      if (!list) {
        list = { docs: [], contributions: [] };
        postings.set(lexeme, list);
        vocabulary = null;
      }
      list.docs.push(doc);
      list.contributions.push(lexemeContribution(weights));
    }
    for (const t of new Set(trigrams(track.names))) {
      let list = trigramDocs.get(t);
      if (!list) trigramDocs.set(t, (list = []));
      list.push(doc);
    }
    grow();
  }

  function sortedVocabulary(): string[] {
    vocabulary ??= [...postings.keys()].sort();
    return vocabulary;
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

  function passes(doc: number, f: SearchFilters): boolean {
    const t = fields[doc];
    if (f.genres && (t.genre === null || !f.genres.includes(t.genre))) return false;
    if (f.moods && !t.moods.some((m) => f.moods!.includes(m))) return false;
    if (f.instruments && !t.instruments.some((i) => f.instruments!.includes(i))) return false;
    if (f.has_vocals !== undefined && t.has_vocals !== f.has_vocals) return false;
    // bpm is a real column: compared as floats, as PostgreSQL does.
    if (f.min_bpm !== undefined && (t.bpm === null || Math.fround(t.bpm) < Math.fround(f.min_bpm))) return false;
    if (f.max_bpm !== undefined && (t.bpm === null || Math.fround(t.bpm) > Math.fround(f.max_bpm))) return false;
    if (f.energy_level && t.energy_level !== f.energy_level) return false;
    return true;
  }

  function search(terms: string[], nameTrigrams: Set<string>, filters: SearchFilters, want: number) {
    const touched: number[] = [];
    // Full text: every query term is a prefix; terms in sorted order, as ts_rank sums them.
    const vocab = sortedVocabulary();
    for (const term of [...terms].sort()) {
      for (let v = firstAtOrAfter(vocab, term); v < vocab.length && vocab[v].startsWith(term); v++) {
        const list = postings.get(vocab[v])!;
        for (let n = 0; n < list.docs.length; n++) {
          const doc = list.docs[n];
          if (sums[doc] === 0) touched.push(doc);
          sums[doc] = addContribution(sums[doc], list.contributions[n]);
        }
      }
    }
    // Names: only a track with at least 60% of the query's trigrams can reach the threshold.
    if (nameTrigrams.size > 0) {
      const counted: number[] = [];
      for (const t of nameTrigrams) {
        for (const doc of trigramDocs.get(t) ?? []) if (trigramCounts[doc]++ === 0) counted.push(doc);
      }
      const needed = WORD_SIMILARITY_THRESHOLD * nameTrigrams.size - 1e-6;
      for (const doc of counted) {
        if (trigramCounts[doc] >= needed && alive[doc]) {
          const similarity = wordSimilarity(nameTrigrams, names[doc]);
          if (similarity >= WORD_SIMILARITY_THRESHOLD) {
            if (sums[doc] === 0) touched.push(doc);
            similarities[doc] = similarity;
          }
        }
        trigramCounts[doc] = 0;
      }
    }
    const best = createTopK(want, (a, b) => ids[a] < ids[b]);
    let total = 0;
    for (const doc of touched) {
      if (alive[doc] && passes(doc, filters)) {
        const rank = sums[doc] === 0 ? 0 : finishRank(sums[doc], terms.length, lengths[doc]);
        best.offer(doc, rank + 0.5 * similarities[doc]);
        total++;
      }
      sums[doc] = 0;
      similarities[doc] = 0;
    }
    return { total, top: best.sorted().map(({ doc, score }) => ({ id: ids[doc], score })) };
  }

  return { upsert, search, live: () => docOf.size, dead: () => deadCount };
}

/** The k best of a stream by score descending, ties by `before` (a min-heap of the current best). */
function createTopK(k: number, before: (a: number, b: number) => boolean) {
  const docs: number[] = [];
  const scores: number[] = [];
  // worse(i, j): entry i ranks below entry j.
  const worse = (i: number, j: number) => scores[i] < scores[j] || (scores[i] === scores[j] && before(docs[j], docs[i]));
  const swap = (i: number, j: number) => {
    [docs[i], docs[j]] = [docs[j], docs[i]];
    [scores[i], scores[j]] = [scores[j], scores[i]];
  };
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
      // Replace the worst kept entry when the new one ranks above it.
      if (score < scores[0] || (score === scores[0] && !before(doc, docs[0]))) return;
      docs[0] = doc;
      scores[0] = score;
      siftDown(0);
    },
    sorted() {
      const order = docs.map((_, i) => i).sort((i, j) => (worse(i, j) ? 1 : worse(j, i) ? -1 : 0));
      return order.map((i) => ({ doc: docs[i], score: scores[i] }));
    },
  };
}
