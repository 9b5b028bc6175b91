// Every route of the account dashboard (/dashboard/...): pages and assets, sign-in and session,
// the account's keys, overview, usage and licenses, and the catalog through the API's endpoints.
import type { Route } from '../http/app.ts';
import type { EndpointDeps } from '../http/endpoint.ts';
import type { SigningKey } from '../../billing/license-signing-key.ts';
import { dashboardRoute } from './dashboard-route.ts';
import { pageRoutes } from './pages.ts';
import { sessionRoutes } from './routes/session.ts';
import { accountRoutes } from './routes/account.ts';
import { catalogRoutes, type CatalogEndpoints } from './routes/catalog.ts';

export function dashboardRoutes(deps: EndpointDeps, signingKey: SigningKey, endpoints: CatalogEndpoints, trustedProxies: ReadonlySet<string>): Route[] {
  const base = { sql: deps.ledger.sql, log: deps.log, trustedProxies };
  return [
    ...pageRoutes(),
    ...sessionRoutes(base),
    ...accountRoutes({ ...base, usage: deps.usage, signingKey }),
    ...catalogRoutes(deps, endpoints),
  ].map((route) => dashboardRoute(base, route));
}
