// The in-memory search index against PostgreSQL itself: filters select exactly what SQL selects,
// the text pieces (tsvector parsing, word_similarity) equal PostgreSQL's, text ranks by how
// distinctive a word is in the catalog (BM25), and every
// committed change to the catalog is visible to the very next search.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/server.ts';
import { API, call } from './support/http.ts';
import { insertPlannedTracks } from './support/catalog-rows.ts';
import { createSearchIndex } from '../search/search-index.ts';
import { queryTrigrams, wordSimilarity } from '../search/trigrams.ts';
import { parseTsvector } from '../search/tsvector.ts';
import { connectSql, type Sql } from '../db/connect.ts';
import { createCatalogSearch } from '../search/catalog-search.ts';
import { indexQueryOf, searchTracks } from '../search/query.ts';
import { migrate } from '../db/migrate.ts';
import { createQueryUnderstanding } from '../search/understand.ts';
import { musicLexicon } from '../search/lexicon.ts';
import { openWordNet } from '../search/wordnet.ts';
import { createValueMeaning } from '../search/value-meaning.ts';
import type { ValueMeaning } from '../search/query-profile.ts';
import { createTestDatabase } from './support/database.ts';
import { queryPhraseTerms } from '../search/tag-phrases.ts';

let server: TestServer;
let key: string;
let sql: Sql;

before(async () => {
  server = await startTestServer();
  key = await server.newKey('pro');
  sql = server.service.database.sql;
  await insertPlannedTracks(sql, 400, 4242);
});
after(() => server.stop());

const search = (body: object) => call(server.base, 'POST', `${API}/search`, key, { intent: false, ...body });


const ids = (r: { body: { tracks: { id: string }[] } }) => r.body.tracks.map((t) => t.id);

test('with a query for any music, each filter alone and combined selects exactly what SQL selects', async () => {
  const cases: [object, ReturnType<typeof sql>][] = [
    [{ genres: ['Electronic', 'Jazz'] }, sql`t.genre IN ('Electronic', 'Jazz')`],
    [{ moods: ['Calm'] }, sql`'Calm' = ANY(t.moods)`],
    [{ instruments: ['Piano', 'Strings'] }, sql`t.instruments && '{Piano,Strings}'::text[]`],
    [{ has_vocals: true }, sql`t.has_vocals`],
    [{ has_vocals: false }, sql`NOT t.has_vocals`],
    [{ energy_level: 'low' }, sql`t.energy_level = 'low'`],
    [{ min_bpm: 90, max_bpm: 110 }, sql`t.bpm BETWEEN 90 AND 110`],
    [{ genres: ['Electronic', 'Ambient', 'Cinematic'], instruments: ['Synth'], has_vocals: false, max_bpm: 130 }, sql`t.genre IN ('Electronic', 'Ambient', 'Cinematic') AND 'Synth' = ANY(t.instruments) AND NOT t.has_vocals AND t.bpm <= 130`],
  ];
  for (const [filters, where] of cases) {
    const [{ count }] = await sql<{ count: number }[]>`SELECT count(*)::int AS count FROM tracks t WHERE removed_at IS NULL AND ${where}`;
    const expected = await sql<{ id: string }[]>`SELECT id FROM tracks t WHERE removed_at IS NULL AND ${where} ORDER BY id`;
    const got = await search({ query: 'music', limit: 100, filters });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body.total_count, count, `total with ${JSON.stringify(filters)}`);
    assert.ok(count > 0, `the reference with ${JSON.stringify(filters)} is not empty`);
    // Nothing in "music" prefers one track: equal scores, so the order is by id.
    assert.deepEqual(ids(got), expected.slice(0, 100).map((r) => r.id), `order with ${JSON.stringify(filters)}`);
  }
});

test('a title with a typo finds that track first; a word nobody knows finds nothing', async () => {
  const titles = await sql<{ title: string }[]>`SELECT title FROM tracks ORDER BY id LIMIT 5`;
  for (const { title } of titles) {
    const typo = title.slice(0, -2) + title.slice(-1); // drop a letter
    const got = await search({ query: typo, limit: 5 });
    assert.equal(got.body.tracks[0].title, title, `"${typo}": ${JSON.stringify(got.body.tracks.map((t: any) => t.title))}`);
  }
  const nothing = await search({ query: 'qwxzzy' });
  assert.equal(nothing.body.total_count, 0);
});

test('word_similarity and tsvector parsing equal PostgreSQL on awkward text', async () => {
  const pairs = [
    ['golden horizn', 'golden horizon nova lane'],
    ['kabankala', 'kabankala river town'],
    ['neon runer', 'neon runner static machines'],
    ['a', 'a b a'],
    ['sunset', 'sunsets over the sunset strip'],
    ['x1 y2', 'x1y2 x1 y2'],
  ];
  for (const [query, text] of pairs) {
    const [{ s }] = await sql<{ s: number }[]>`SELECT word_similarity(${query}, ${text}) AS s`;
    assert.equal(wordSimilarity(queryTrigrams(query), text), Math.fround(s), `${query} | ${text}`);
  }
  // Random pairs over a small alphabet, so that they share many trigrams in many arrangements.
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const word = () => Array.from({ length: 1 + Math.floor(random() * 6) }, () => 'abcde'[Math.floor(random() * 5)]).join('');
  const phrase = (words: number) => Array.from({ length: words }, word).join(' ');
  const queries = Array.from({ length: 400 }, () => phrase(1 + Math.floor(random() * 3)));
  const texts = Array.from({ length: 400 }, () => phrase(2 + Math.floor(random() * 5)));
  const rows = await sql<{ s: number }[]>`SELECT word_similarity(q, t) AS s FROM unnest(${queries}::text[], ${texts}::text[]) AS x(q, t)`;
  rows.forEach(({ s }, i) => assert.equal(wordSimilarity(queryTrigrams(queries[i]), texts[i]), Math.fround(s), `${queries[i]} | ${texts[i]}`));
  const docs = ["o'brien's back\\slash running runs", 'dark dark dark cinematic strings dark', "it''s 'quoted' \\ text"];
  for (const doc of docs) {
    const [row] = await sql<{ v: string }[]>`SELECT (setweight(to_tsvector('english', ${doc}), 'A') || setweight(to_tsvector('english', ${doc}), 'C'))::text AS v`;
    const entries = await sql<{ lexeme: string; weights: string[] }[]>`
      SELECT lexeme, weights FROM unnest(setweight(to_tsvector('english', ${doc}), 'A') || setweight(to_tsvector('english', ${doc}), 'C'))`;
    assert.deepEqual(parseTsvector(row.v).map((e) => ({ lexeme: e.lexeme, weights: e.classes })), entries.map((e) => ({ lexeme: e.lexeme, weights: [...e.weights] })), doc);
  }
});

test('text ranks by how distinctive a word is in this catalog: a rare word outweighs a common one said twice, in a longer document', async () => {
  const index = await indexOf([
    ...Array.from({ length: 40 }, (_, i) => ({ id: `common-${String(i).padStart(2, '0')}`, text: 'upbeat video music for a video ad' })),
    { id: 'rare-1', text: 'ukulele song' },
    { id: 'rare-2', text: 'happy ukulele tune for a video' },
  ]);
  const found = index.search({ terms: ['ukulel', 'video'], nameTrigrams: new Set(), concepts: [], anything: false, filters: {}, want: 3 });
  assert.equal(found.total, 42);
  const top = found.top.map((t) => t.id);
  assert.deepEqual(top.slice(0, 2).sort(), ['rare-1', 'rare-2'], `the rare word first: ${top}`);
  assert.equal(top[2], 'common-00');
});

/** An index of tracks given as tsvector text (description class C), genre, moods and artist. */
async function indexOf(tracks: { id: string; text: string; genre?: string; subgenres?: string[]; moods?: string[]; instruments?: string[]; artist?: string }[], meaning: ValueMeaning = () => new Map()) {
  const index = createSearchIndex(meaning);
  for (const t of tracks) {
    const [{ v }] = await sql<{ v: string }[]>`SELECT setweight(to_tsvector('english', ${t.text}), 'C')::text AS v`;
    index.upsert({ id: t.id, document: v, names: t.id, artist: t.artist ?? t.id, genre: t.genre ?? null, subgenres: t.subgenres ?? [], moods: t.moods ?? [], instruments: t.instruments ?? [], has_vocals: null, bpm: null, key: null, energy_level: null, timbre: null, removed: false, summary: '{}' });
  }
  return index;
}

test('a tag of several words that the query names outranks its words spread over other tags', async () => {
  const index = await indexOf([
    ...Array.from({ length: 6 }, (_, i) => ({ id: `spread-${i}`, text: 'bass drum electronic', instruments: ['Bass', 'Drum Machine'] })),
    { id: 'tagged', text: 'bass drum electronic', instruments: ['Bass', 'Drum Machine'], subgenres: ['Drum and Bass'] },
  ]);
  const search = (terms: string[]) => index.search({ terms, nameTrigrams: new Set(), concepts: [], anything: false, filters: {}, want: 3 }).top.map((t) => t.id);
  // The words alone tie (every document has the same words and tags but the one): ties go by id.
  assert.equal(search(['drum', 'bass'])[0], 'spread-0');
  assert.equal(search(['drum', 'bass', ...queryPhraseTerms(['drum', 'and', 'bass'])])[0], 'tagged');
  // A run that is only part of the tag ("drum and") is not the tag.
  assert.equal(search(['drum', ...queryPhraseTerms(['drum', 'and'])])[0], 'spread-0');
});

test('a concept leans on the tags its own words go with in this catalog, for tracks that never say them', async () => {
  const understanding = createQueryUnderstanding(musicLexicon(), openWordNet());
  // The lexicon's "christmas" wants Happy and Warm alike; here the tracks that say "christmas" are Warm.
  const index = await indexOf([
    ...Array.from({ length: 6 }, (_, i) => ({ id: `c-said-${i}`, text: 'christmas sleigh bells', moods: ['Warm'] })),
    ...Array.from({ length: 6 }, (_, i) => ({ id: `b-warm-${i}`, text: 'fireside song', moods: ['Warm'] })),
    ...Array.from({ length: 6 }, (_, i) => ({ id: `a-happy-${i}`, text: 'sunny song', moods: ['Happy'] })),
    ...Array.from({ length: 60 }, (_, i) => ({ id: `d-other-${String(i).padStart(2, '0')}`, text: 'rain at night', moods: ['Dark'] })),
  ], createValueMeaning(understanding));
  const { concepts } = understanding.understand('christmas');
  const found = index.search({ terms: ['christma'], conceptTerms: [['christma']], nameTrigrams: new Set(), concepts, anything: false, filters: {}, want: 18 });
  const order = found.top.map((t) => t.id).filter((id) => !id.startsWith('c-said'));
  const lastWarm = Math.max(...order.map((id, i) => (id.startsWith('b-warm') ? i : -1)));
  const firstHappy = order.findIndex((id) => id.startsWith('a-happy'));
  assert.ok(firstHappy === -1 || lastWarm < firstHappy, `Warm before Happy: ${order}`);
  assert.ok(found.top.slice(0, 6).every((t) => t.id.startsWith('c-said')), 'the tracks that say it first');
});

test('a page is not ten near-copies: another genre and artist nearly as good gets places in the top 10', async () => {
  const index = await indexOf([
    ...Array.from({ length: 12 }, (_, i) => ({ id: `a-${String(i).padStart(2, '0')}`, text: 'rain', genre: 'Ambient', artist: 'One Artist' })),
    ...Array.from({ length: 6 }, (_, i) => ({ id: `b-${i}`, text: 'rain falling', genre: 'Jazz', artist: 'Another' })),
  ]);
  const query = (want: number) => ({ terms: ['rain'], nameTrigrams: new Set<string>(), concepts: [], anything: false, filters: {}, want });
  const top = index.search(query(10)).top.map((t) => t.id);
  assert.equal(top[0], 'a-00', 'the best first');
  assert.ok(top.some((id) => id.startsWith('b-')), `both genres in the top 10: ${top}`);
  const all = index.search(query(18)).top.map((t) => t.id);
  assert.deepEqual(all.slice(0, 10), top, 'a longer page begins with the shorter one');
  assert.equal(new Set(all).size, 18);
});

test('an insert, a rename and a removal are visible to the very next search', async () => {
  const [track] = await insertPlannedTracks(sql, 1, 99_001);
  const found = await search({ query: 'Zanzibarquux' });
  assert.equal(found.body.total_count, 0);
  await sql`UPDATE tracks SET title = 'Zanzibarquux Nights' WHERE id = ${track.id}`;
  const renamed = await search({ query: 'zanzibarquux' });
  assert.deepEqual(renamed.body.tracks.map((t: any) => t.id), [track.id]);
  assert.equal(renamed.body.tracks[0].title, 'Zanzibarquux Nights');
  await sql`UPDATE tracks SET title = 'Plain Again' WHERE id = ${track.id}`;
  assert.equal((await search({ query: 'zanzibarquux' })).body.total_count, 0);
  assert.ok((await search({ query: 'plain again' })).body.tracks.some((t: any) => t.id === track.id));
  await sql`UPDATE tracks SET removed_at = now() WHERE id = ${track.id}`;
  assert.ok(!(await search({ query: 'plain again', limit: 100 })).body.tracks.some((t: any) => t.id === track.id));
  const before = (await search({ query: 'music' })).body.total_count;
  await insertPlannedTracks(sql, 50, 99_002);
  const after = (await search({ query: 'music' })).body.total_count;
  const [{ live }] = await sql<{ live: number }[]>`SELECT count(*)::int AS live FROM tracks WHERE removed_at IS NULL`;
  assert.equal(after, live);
  assert.equal(after, before + 50, 'the new tracks are found');
});

test('100 concurrent searches right after an insert all see it: none answers from the index its catch-up left behind', async () => {
  const own = await server.newKey('pro');
  for (let round = 0; round < 3; round++) {
    const [track] = await insertPlannedTracks(sql, 1, 99_100 + round);
    await sql`UPDATE tracks SET title = ${`Quokkavale Round ${round}`} WHERE id = ${track.id}`;
    const responses = await Promise.all(Array.from({ length: 100 }, () =>
      call(server.base, 'POST', `${API}/search`, own, { query: `quokkavale round ${round}`, intent: false })));
    for (const r of responses) {
      assert.equal(r.status, 200);
      assert.ok(r.body.tracks.some((t: any) => t.id === track.id), `round ${round}: ${JSON.stringify(r.body.tracks.map((t: any) => t.title))}`);
    }
  }
});

test('a search that joins a catch-up begun before its change was committed still sees the change', async () => {
  // A database of its own: the 20,000 rows that make the catch-up take a while stay out of the others.
  const db = await createTestDatabase();
  const own = connectSql(db.url, 4);
  try {
    await migrate(own);
    const live = createCatalogSearch(own).index;
    await live.current();
    await insertPlannedTracks(own, 20_000, 99_200);
    const longCatchUp = live.refreshIfChanged();
    await new Promise((r) => setTimeout(r, 50));
    // Committed while that catch-up reads: a search from now on must see it.
    const [track] = await insertPlannedTracks(own, 1, 99_201);
    await own`UPDATE tracks SET title = 'Wombatglen Late' WHERE id = ${track.id}`;
    const query = 'wombatglen late';
    const terms = await live.terms(query.split(' '));
    const found = await live.fresh((index) => index.search({ terms, nameTrigrams: queryTrigrams(query), concepts: [], anything: false, filters: {}, want: 10 }).top.map((t) => t.id));
    assert.ok(found.includes(track.id), `found ${JSON.stringify(found)}`);
    await longCatchUp;
  } finally {
    await own.end();
    await db.drop();
  }
});

test("a mood value that only a just-added track uses is a valid filter at once", async () => {
  const [track] = await insertPlannedTracks(sql, 1, 99_003);
  const unknown = await search({ query: track.title, filters: { moods: ['Zestful'] } });
  assert.equal(unknown.status, 400);
  assert.match(unknown.body.message, /Zestful/);
  await sql`UPDATE tracks SET moods = moods || '{Zestful}'::text[] WHERE id = ${track.id}`;
  const found = await search({ query: track.title, filters: { moods: ['zestful'] } });
  assert.equal(found.status, 200, JSON.stringify(found.body));
  assert.deepEqual(found.body.tracks.map((t: any) => t.id), [track.id]);
});

test('after many changes the index is rebuilt from scratch and ranks as an index built anew', async () => {
  // Each pass re-stamps every track, leaving a dead entry per track behind; beyond 1,000 more dead
  // than live entries the next catch-up rebuilds the index.
  for (let pass = 0; pass < 5; pass++) {
    await sql`UPDATE tracks SET description = description || ' again' WHERE removed_at IS NULL`;
    assert.equal((await search({ query: 'piano' })).status, 200);
  }
  const anew = createCatalogSearch(sql);
  for (const query of ['piano', 'dark cinematic trailer', 'music for a workout', 'again']) {
    const got = await search({ query, limit: 50 });
    const expected = await searchTracks(anew.index, anew.understanding, { query, limit: 50, offset: 0, filters: {} }, false);
    assert.deepEqual(ids(got), expected.tracks.map((t) => t.id), query);
    assert.equal(got.body.total_count, expected.total, query);
  }
});

test('ranking by tag combination, best first (it stops early), gives what scoring every track gives', async () => {
  const anew = createCatalogSearch(sql);
  const index = await anew.index.current();
  const filterSets = [{}, { min_bpm: 90, max_bpm: 110 }, { min_bpm: 0, max_bpm: 1000 }, { genres: ['Electronic', 'Ambient'], max_bpm: 125.5 }, { has_vocals: false, energy_level: 'low' as const }, { moods: ['Calm'], min_bpm: 100 }];
  for (const query of ['music', 'sad', 'boss fight', 'calm music without vocals', 'not too fast', 'smooth jazz piano', 'kids cartoon', 'golden horizon', 'uplifting acoustic guitar around 110 bpm']) {
    for (const filters of filterSets) {
      for (const limit of [1, 7, 50]) {
        for (const facets of limit === 7 ? [false, true] : [false]) {
          const { query: q } = await indexQueryOf(anew.index, anew.understanding, { query, limit, offset: 0, filters, facets }, true);
          const pruned = index.search(q);
          const full = index.search(q, true);
          const label = `${query}, ${JSON.stringify(filters)}, limit ${limit}${facets ? ', facets' : ''}`;
          assert.deepEqual(pruned.top.map((t) => t.id), full.top.map((t) => t.id), label);
          assert.equal(pruned.total, full.total, label);
          assert.deepEqual(pruned.facets, full.facets, label);
        }
      }
    }
  }
});

test('equal scores are ordered by id, for our ids and for ids of any other form', () => {
  const index = createSearchIndex(() => new Map());
  const ids = ['trk_00000000000000ff', 'trk_0000000000000100', 'trk_custom', 'trk_0000000100000000', 'track-9', 'trk_00000000000000fe'];
  for (const id of ids) {
    index.upsert({ id, document: "'piano':1A", names: 'same name', artist: 'same artist', genre: null, subgenres: [], moods: [], instruments: [], has_vocals: null, bpm: null, key: null, energy_level: null, timbre: null, removed: false, summary: '{}' });
  }
  const query = (want: number) => ({ terms: ['piano'], nameTrigrams: new Set<string>(), concepts: [], anything: false, filters: {}, want });
  const found = index.search(query(10));
  assert.equal(found.total, ids.length);
  assert.deepEqual(found.top.map((t) => t.id), [...ids].sort());
  assert.deepEqual(index.search(query(3)).top.map((t) => t.id), [...ids].sort().slice(0, 3));
});
