// POST /search and GET /tracks/{id}/similar: finding tracks.
import type { PathItemObject } from '../types.ts';
import { idempotencyKeyParameter } from '../headers.ts';
import { exampleTrack, EXAMPLE_TRACK_ID } from './examples.ts';
import { integerQuery, jsonBody, keyedJson, keyedOperation, trackIdPath } from './operation.ts';

export const searchPaths: Record<string, PathItemObject> = {
  '/search': {
    post: keyedOperation({
      operationId: 'search',
      summary: 'Search the catalog in everyday words, with optional filters',
      description: 'Relevance order, ties by id; an offset beyond the matches gives an empty page. Invalid bodies (missing or empty query, '
        + 'over 500 characters, limit outside 1-100, min_bpm above max_bpm, unknown fields or filter values) are 400s that cost nothing; '
        + 'an unknown filter value names the nearest valid ones. `"intent": true` on a free key is a 403.',
      tag: 'Search',
      cost: 1,
      parameters: [idempotencyKeyParameter],
      requestBody: jsonBody('SearchRequest', {
        everyday: { summary: 'Everyday words', value: { query: 'calm piano for a wedding video' } },
        filtered: { summary: 'With filters and facets', value: { query: 'driving beat', limit: 10, filters: { genres: ['Electronic'], min_bpm: 110, max_bpm: 130 }, facets: true } },
      }),
      success: {
        200: keyedJson('Matching tracks.', 'SearchResponse', {
          tracks: [exampleTrack], credits_remaining: 298, total_count: 1, offset: 0, limit: 20,
          intent: { matched: ['calm', 'piano', 'wedding video'], not_understood: [], related: [], applied: 'filters', instruments: ['Piano'] },
        }, ['Idempotent-Replayed']),
      },
      errors: ['invalid_parameters', 'insufficient_credits', 'forbidden', 'idempotency_key_in_flight', 'payload_too_large', 'idempotency_key_reused'],
    }),
  },
  '/tracks/{id}/similar': {
    get: keyedOperation({
      operationId: 'similarTracks',
      summary: 'The tracks most like a track',
      description: 'By genre, moods, instruments, energy, tempo, key and vocals; never the track itself. An unknown or removed id is a 404 and costs nothing.',
      tag: 'Search',
      cost: 1,
      parameters: [trackIdPath, integerQuery('limit', 'Tracks to return.', 1, 100, 10), idempotencyKeyParameter],
      success: {
        200: keyedJson('Similar tracks, most similar first.', 'SimilarTracks', {
          track_id: EXAMPLE_TRACK_ID, tracks: [{ ...exampleTrack, id: 'trk_0b1c2d3e4f5a6b7c', title: 'Neon Rain' }], credits_remaining: 297, total_count: 40, limit: 10,
        }, ['Idempotent-Replayed']),
      },
      errors: ['invalid_parameters', 'insufficient_credits', 'not_found', 'idempotency_key_in_flight', 'idempotency_key_reused'],
    }),
  },
};
