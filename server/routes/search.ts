// POST /search (spec 4.1): natural-language search with filters, relevance order, pagination.
// 1 credit. Understanding and ranking live in search/ (query.ts); here: validation, the tier's
// intent rule, and the reply.
import type { Endpoint } from '../http/endpoint.ts';
import { ApiError } from '../http/api-error.ts';
import { jsonTextReply } from '../http/reply.ts';
import { validateSearch } from './search-request.ts';
import type { SearchRequest } from '../../search/request.ts';
import { searchTracks } from '../../search/query.ts';
import type { CatalogSearch } from '../../search/catalog-search.ts';
import type { LiveSearchIndex } from '../../search/live-index.ts';
import { trackListJson } from './track-list.ts';

/**
 * Validates with the catalog's own mood and instrument values (from the index); a value the index
 * has not seen is checked again after the index catches up, in case a track just brought it.
 */
async function validateAgainstCatalog(index: LiveSearchIndex, body: Record<string, unknown> | undefined): Promise<SearchRequest> {
  try {
    return validateSearch(body, (await index.current()).catalogValues());
  } catch (err) {
    if (!(err instanceof ApiError) || !(await index.refreshIfChanged())) throw err;
    return validateSearch(body, (await index.current()).catalogValues());
  }
}

export function searchEndpoint(deps: { search: CatalogSearch; secret: string; baseUrl: () => string }): Endpoint {
  return {
    name: '/search',
    cost: 1,
    jsonBody: true,
    idempotency: 'stored',
    async prepare({ body, admission }): Promise<SearchRequest> {
      const request = await validateAgainstCatalog(deps.search.index, body);
      if (request.intent === true && !admission.intentExtraction) {
        throw new ApiError(403, 'forbidden', `intent extraction is a paid-plan feature (starter or pro); this key is on the ${admission.tier} tier. Plain search works without "intent": true`);
      }
      return request;
    },
    // Search only reads: it is charged while it is worked out, and given back if it fails (see Endpoint.answer).
    async answer({ prepared, admission }) {
      const request = prepared as SearchRequest;
      const result = await searchTracks(deps.search.index, deps.search.understanding, request, request.intent ?? admission.intentExtraction);
      const tracks = trackListJson(result.tracks, deps.baseUrl(), deps.secret);
      const facets = result.facets ? `,"facets":${JSON.stringify(result.facets)}` : '';
      const rest = `,"total_count":${result.total},"offset":${request.offset},"limit":${request.limit},"intent":${JSON.stringify(result.intent)}${facets}}`;
      return (creditsRemaining) => jsonTextReply(`{"tracks":${tracks},"credits_remaining":${creditsRemaining}${rest}`);
    },
  };
}
