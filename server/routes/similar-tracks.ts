// GET /tracks/{id}/similar?limit= : the tracks most like a track, by profile and audio features
// (search/similarity.ts), never the track itself. 1 credit, like a search; an unknown or removed
// track is a 404 and costs nothing. Takes an Idempotency-Key, as a search does: a retry is charged once.
import type { Endpoint } from '../http/endpoint.ts';
import { ApiError } from '../http/api-error.ts';
import { jsonTextReply } from '../http/reply.ts';
import { integerQueryParameter, rejectQueryParameters } from '../http/query.ts';
import { TRACK_ID } from '../../catalog/store.ts';
import type { CatalogSearch } from '../../search/catalog-search.ts';
import type { Ranking } from '../../search/search-index.ts';
import { trackListJson } from './track-list.ts';
import { quoted } from '../http/value-preview.ts';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;

export function similarTracksEndpoint(deps: { search: CatalogSearch; secret: string; baseUrl: () => string }): Endpoint {
  return {
    name: '/tracks/{id}/similar',
    cost: 1,
    jsonBody: false,
    paramCount: 1,
    idempotency: 'stored',
    // Worked out before the charge (one look at the index, which also tells an unknown id): its
    // 404 costs nothing, and the answer only has to be written.
    async prepare({ params, query }): Promise<{ id: string; limit: number; ranking: Ranking }> {
      rejectQueryParameters(query, ['limit']);
      const limit = integerQueryParameter(query, 'limit', { min: 1, max: MAX_LIMIT, fallback: DEFAULT_LIMIT });
      const id = params[0];
      const ranking = TRACK_ID.test(id) ? await deps.search.index.fresh((index) => index.similar(id, limit)) : null;
      if (!ranking) throw new ApiError(404, 'not_found', `no track ${quoted(id)}`);
      return { id, limit, ranking };
    },
    async answer({ prepared }) {
      const { id, limit, ranking } = prepared as { id: string; limit: number; ranking: Ranking };
      const tracks = trackListJson(ranking.top, deps.baseUrl(), deps.secret);
      return (creditsRemaining) => jsonTextReply(`{"track_id":${JSON.stringify(id)},"tracks":${tracks},"credits_remaining":${creditsRemaining},"total_count":${ranking.total},"limit":${limit}}`);
    },
  };
}
