// What a search asks for, once its body is validated (server/routes/search-request.ts): the
// spec's filters (4.1) and the page.

export interface SearchFilters {
  genres?: string[];
  moods?: string[];
  instruments?: string[];
  has_vocals?: boolean;
  min_bpm?: number;
  max_bpm?: number;
  energy_level?: 'low' | 'medium' | 'high';
}

export interface SearchRequest {
  query: string;
  limit: number;
  offset: number;
  filters: SearchFilters;
  /** undefined: the tier's default. */
  intent?: boolean;
  /** Add facet counts over every matching track. */
  facets?: boolean;
}
