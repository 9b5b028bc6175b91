// POST /search (spec 4.1): natural-language search with filters, relevance order, pagination.
// 1 credit. Intent extraction (paid tiers) is not built yet: `intent` is null in responses.
import type { Sql } from '../db/connect.ts';
import type { Endpoint } from '../http/endpoint.ts';
import { ApiError } from '../http/api-error.ts';
import { jsonReply } from '../http/reply.ts';
import { validateSearch, type SearchRequest } from '../search/validate.ts';
import { catalogVocabulary, searchTracks } from '../search/query.ts';
import { signedPreviewUrl } from '../previews.ts';

export function searchEndpoint(deps: { sql: Sql; secret: string; baseUrl: () => string }): Endpoint {
  const vocabulary = catalogVocabulary(deps.sql);
  return {
    name: '/search',
    cost: 1,
    jsonBody: true,
    async prepare({ body, admission }): Promise<SearchRequest> {
      const request = validateSearch(body, await vocabulary());
      if (request.intent === true && !admission.intentExtraction) {
        throw new ApiError(403, 'forbidden', `intent extraction is a paid-plan feature (starter or pro); this key is on the ${admission.tier} tier. Plain search works without "intent": true`);
      }
      return request;
    },
    async handle({ prepared, creditsRemaining }) {
      const request = prepared as SearchRequest;
      const { tracks, total } = await searchTracks(deps.sql, request);
      const base = deps.baseUrl();
      return jsonReply({
        tracks: tracks.map(({ score, ...track }) => ({ ...track, preview_url: signedPreviewUrl(base, deps.secret, track.id) })),
        credits_remaining: creditsRemaining,
        total_count: total,
        offset: request.offset,
        limit: request.limit,
        intent: null,
      });
    },
  };
}
