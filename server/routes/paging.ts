// The paging parameters of a history list (spec 4.4 for /usage; /licenses pages the same way):
// limit 1-100 (default 50), offset from 0 (default 0), no other parameter. A page shorter than
// its limit is the last one.
import { integerQueryParameter, rejectQueryParameters } from '../http/query.ts';

const MAX_PAGE = 100;
const DEFAULT_PAGE = 50;
const MAX_OFFSET = 2_147_483_647; // PostgreSQL's integer: an OFFSET beyond it is an error there

export interface Page {
  limit: number;
  offset: number;
}

/** The page a query asks for; 400 naming the parameter when it is unknown, repeated or out of range. */
export function pageOf(query: URLSearchParams): Page {
  rejectQueryParameters(query, ['limit', 'offset']);
  const limit = integerQueryParameter(query, 'limit', { min: 1, max: MAX_PAGE, fallback: DEFAULT_PAGE });
  const offset = integerQueryParameter(query, 'offset', { min: 0, max: MAX_OFFSET, fallback: 0 });
  return { limit, offset };
}
