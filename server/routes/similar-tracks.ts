// GET /tracks/{id}/similar?limit= : the tracks most like a track, by profile and audio features
// (search/similarity.ts), never the track itself. 1 credit, like a search; an unknown or removed
// track is a 404 and costs nothing.
import type { Endpoint } from '../http/endpoint.ts';
import { ApiError } from '../http/api-error.ts';
import { jsonTextReply } from '../http/reply.ts';
import { integerQueryParameter, rejectQueryParameters } from '../http/query.ts';
import { TRACK_ID } from '../../catalog/store.ts';
import type { CatalogSearch } from '../../search/catalog-search.ts';
import { trackListJson } from './track-list.ts';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;

export function similarTracksEndpoint(deps: { search: CatalogSearch; secret: string; baseUrl: () => string }): Endpoint {
  return {
    name: '/tracks/{id}/similar',
    cost: 1,
    jsonBody: false,
    paramCount: 1,
    async prepare({ params, query }) {
      rejectQueryParameters(query, ['limit']);
      const limit = integerQueryParameter(query, 'limit', { min: 1, max: MAX_LIMIT, fallback: DEFAULT_LIMIT });
      const id = params[0];
      const unknown = () => new ApiError(404, 'not_found', `no track "${id}"`);
      if (!TRACK_ID.test(id)) throw unknown();
      // Known now, after the index caught up with every change committed before this request.
      const known = await deps.search.index.fresh((index) => index.has(id));
      if (!known) throw unknown();
      return { id, limit };
    },
    async answer({ prepared }) {
      const { id, limit } = prepared as { id: string; limit: number };
      const ranking = await deps.search.index.fresh((index) => index.similar(id, limit));
      if (!ranking) throw new ApiError(404, 'not_found', `no track "${id}"`); // removed since prepare: refunded
      const tracks = trackListJson(ranking.top, deps.baseUrl(), deps.secret);
      return (creditsRemaining) => jsonTextReply(`{"track_id":${JSON.stringify(id)},"tracks":${tracks},"credits_remaining":${creditsRemaining},"total_count":${ranking.total},"limit":${limit}}`);
    },
  };
}
