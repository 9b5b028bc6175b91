// Keeps the in-memory search index level with the tracks table. PostgreSQL stays the source of
// truth: it computes each track's tsvector (stemming, weights) and each query word's lexemes, and
// stamps every search-relevant write with a revision (migration 010). The index reads the rows
// above the last revision it holds: at start, when a search sees a newer revision, and from
// scratch (swapped in when done) once dead entries outnumber live ones.
import { LRUCache } from 'lru-cache';
import type { Sql } from '../db/connect.ts';
import { createSearchIndex, type IndexedTrack, type SearchIndex } from './search-index.ts';
import type { ValueMeaning } from './query-profile.ts';

const FETCH_BATCH = 2000;
const MAX_QUERY_WORDS = 32;

export interface LiveSearchIndex {
  /** The index as of the last catch-up (awaits the first load). */
  current(): Promise<SearchIndex>;
  /**
   * Runs `use` on the index, never on a stale one: the newest revision is read from PostgreSQL
   * while `use` runs, and if the catalog changed since the index last read it, the index catches
   * up and `use` runs again. So a search never misses a change committed before it started.
   */
  fresh<T>(use: (index: SearchIndex) => T): Promise<T>;
  /** Catches up if the catalog changed since the last read; true if it had. */
  refreshIfChanged(): Promise<boolean>;
  /** Search terms of words: PostgreSQL's English lexemes of them, unique. */
  terms(words: string[]): Promise<string[]>;
}


/** A track as search results show it: the spec's fields (2.1) plus peak_seconds and preview_url. */
export interface TrackSummary {
  id: string;
  title: string;
  artist: string;
  duration_seconds: number;
  bpm: number | null;
  key: string | null;
  genre: string | null;
  subgenres: string[];
  moods: string[];
  has_vocals: boolean | null;
  energy_level: string | null;
  instruments: string[];
  peak_seconds: number;
  preview_url: string;
}

type ChangedRow = Omit<IndexedTrack, 'summary'> & Omit<TrackSummary, 'preview_url'> & { search_revision: number };

async function readChanges(sql: Sql, index: SearchIndex, after: number): Promise<number> {
  let revision = after;
  const cursor = sql<ChangedRow[]>`
    SELECT id, search_document::text AS document, search_names AS names, genre, moods, instruments, has_vocals, bpm,
           energy_level, removed_at IS NOT NULL AS removed, search_revision,
           title, artist, duration_seconds, key, subgenres, peak_seconds, timbre
      FROM tracks WHERE search_revision > ${after} ORDER BY search_revision`.cursor(FETCH_BATCH);
  for await (const rows of cursor) {
    for (const row of rows) index.upsert({ ...row, summary: JSON.stringify(summaryOf(row)) });
    revision = rows[rows.length - 1].search_revision;
  }
  return revision;
}

/** The spec's track fields (2.1) plus peak_seconds, in the order responses list them. */
function summaryOf(row: ChangedRow): Omit<TrackSummary, 'preview_url'> {
  const { id, title, artist, duration_seconds, bpm, key, genre, subgenres, moods, has_vocals, energy_level, instruments, peak_seconds } = row;
  return { id, title, artist, duration_seconds, bpm, key, genre, subgenres, moods, has_vocals, energy_level, instruments, peak_seconds };
}

export function createLiveSearchIndex(sql: Sql, meaning: ValueMeaning): LiveSearchIndex {
  let index = createSearchIndex(meaning);
  let revision = 0;
  let reading: Promise<void> | null = null;
  const lexemesOf = new LRUCache<string, string[]>({ max: 50_000 });

  function catchUp(): Promise<void> {
    reading ??= (async () => {
      try {
        if (index.dead() > index.live() + 1000) {
          const fresh = createSearchIndex(meaning);
          revision = await readChanges(sql, fresh, 0);
          index = fresh;
        } else {
          revision = await readChanges(sql, index, revision);
        }
      } finally {
        reading = null;
      }
    })();
    return reading;
  }

  async function newestRevision(): Promise<number> {
    const [row] = await sql<{ revision: number }[]>`SELECT coalesce(max(search_revision), 0) AS revision FROM tracks`.execute();
    return row.revision;
  }

  /**
   * Catches up until the index holds `target`. A catch-up already under way may have read the
   * table before `target` was committed: it is joined, and then another one is started.
   */
  async function caughtUpTo(target: number): Promise<void> {
    while (revision < target) await catchUp();
  }

  let loaded: Promise<void> | null = null;
  async function current(): Promise<SearchIndex> {
    loaded ??= catchUp().catch((err) => {
      loaded = null; // try again on the next search
      throw err;
    });
    await loaded;
    return index;
  }

  return {
    current,
    async fresh(use) {
      const newest = newestRevision();
      newest.catch(() => {}); // awaited below, unless loading the index fails first
      // postgres.js writes queries on the next turn of the event loop, and statement batchers
      // (the charge of this very request) issue theirs on the next turn too: two turns let every
      // query issued before this one go out before `use` takes the thread, so their round trips
      // run alongside it.
      await new Promise(setImmediate);
      await new Promise(setImmediate);
      await current();
      // `used` is the revision the index held when `use` ran on it, taken in the same turn: the
      // shared `revision` may move on (another search's catch-up) before `newest` arrives.
      const used = revision;
      const result = use(index);
      const target = await newest;
      if (used >= target) return result;
      await caughtUpTo(target);
      return use(index);
    },
    async refreshIfChanged() {
      const target = await newestRevision();
      if (target <= revision) return false;
      await caughtUpTo(target);
      return true;
    },
    async terms(queryWords) {
      // The distinct words (at most MAX_QUERY_WORDS), each looked up as a prefix term.
      const words = [...new Set(queryWords)].slice(0, MAX_QUERY_WORDS);
      const missing = words.filter((w) => !lexemesOf.has(w));
      if (missing.length > 0) {
        const rows = await sql<{ word: string; lexemes: string[] }[]>`
          SELECT w AS word, tsvector_to_array(to_tsvector('english', w)) AS lexemes FROM unnest(${missing}::text[]) AS w`;
        for (const row of rows) lexemesOf.set(row.word, row.lexemes);
      }
      return [...new Set(words.flatMap((w) => lexemesOf.get(w) ?? []))];
    },
  };
}
