// The catalog page's calls: the API's own endpoints (search, track analysis, clip plan, download),
// run with one of the account's keys chosen by ?key_id= (keyed-endpoint.ts): charged, limited
// and recorded exactly as the same call with that key.
import type { Endpoint, EndpointDeps } from '../../http/endpoint.ts';
import type { DashboardRoute } from '../dashboard-route.ts';
import { keyedEndpoint } from '../keyed-endpoint.ts';

export interface CatalogEndpoints {
  search: Endpoint;
  analysis: Endpoint;
  clipPlan: Endpoint;
  download: Endpoint;
}

export function catalogRoutes(deps: EndpointDeps, endpoints: CatalogEndpoints): DashboardRoute[] {
  const route = (method: 'get' | 'post', path: string, endpoint: Endpoint): DashboardRoute =>
    ({ method, path: `/dashboard/api/catalog${path}`, paramCount: endpoint.paramCount, access: 'signed-in', csrf: true, keyed: true, handle: keyedEndpoint(deps, endpoint) });
  return [
    route('post', '/search', endpoints.search),
    route('get', '/tracks/:id/analysis', endpoints.analysis),
    route('post', '/clip-plan', endpoints.clipPlan),
    route('post', '/download-track', endpoints.download),
  ];
}
