// POST /search (spec 4.1): natural-language search with filters, relevance order, pagination.
// 1 credit. Intent extraction runs for paid tiers by default ("intent": false turns it off): what it
// infers becomes filters, merged under the explicit ones; if those filters leave nothing, the
// search falls back to ranking by the words alone, and says so (intent.applied = "none").
import type { Endpoint } from '../http/endpoint.ts';
import { ApiError } from '../http/api-error.ts';
import { jsonTextReply } from '../http/reply.ts';
import { validateSearch, type SearchRequest } from './search-request.ts';
import { searchTracks } from '../../search/query.ts';
import type { LiveSearchIndex } from '../../search/live-index.ts';
import { extractIntent, mergeFilters, type Intent } from '../../search/intent.ts';
import { signedPreviewUrl } from '../previews.ts';

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

export function searchEndpoint(deps: { index: LiveSearchIndex; secret: string; baseUrl: () => string }): Endpoint {
  return {
    name: '/search',
    cost: 1,
    jsonBody: true,
    async prepare({ body, admission }): Promise<SearchRequest> {
      const request = await validateAgainstCatalog(deps.index, body);
      if (request.intent === true && !admission.intentExtraction) {
        throw new ApiError(403, 'forbidden', `intent extraction is a paid-plan feature (starter or pro); this key is on the ${admission.tier} tier. Plain search works without "intent": true`);
      }
      return request;
    },
    // Search only reads: it is charged while it is worked out, and given back if it fails (see Endpoint.answer).
    async answer({ prepared, admission }) {
      const request = prepared as SearchRequest;
      const useIntent = request.intent ?? admission.intentExtraction;
      let intent: (Intent & { applied: 'filters' | 'none' }) | null = null;
      let result;
      if (useIntent) {
        // The inferred filters, and the fallback without them, come from one scoring pass.
        const extracted = extractIntent(request.query);
        const inferred = extracted.matched.length > 0;
        const found = await searchTracks(deps.index, { ...request, filters: mergeFilters(request.filters, extracted) }, inferred ? request.filters : undefined);
        intent = { ...extracted, applied: found.fallback ? 'none' : 'filters' };
        result = found.fallback ?? found;
      } else {
        result = await searchTracks(deps.index, request);
      }
      const { tracks, total } = result;
      const base = deps.baseUrl();
      // The summaries are kept as JSON: each gets its preview_url spliced in before its closing
      // brace, rather than being parsed and serialized again (most of a search's garbage).
      const shown = tracks.map((t) => `${t.summary.slice(0, -1)},"preview_url":${JSON.stringify(signedPreviewUrl(base, deps.secret, t.id))}}`);
      const rest = `,"total_count":${total},"offset":${request.offset},"limit":${request.limit},"intent":${JSON.stringify(intent)}}`;
      return (creditsRemaining) => jsonTextReply(`{"tracks":[${shown.join(',')}],"credits_remaining":${creditsRemaining}${rest}`);
    },
  };
}
