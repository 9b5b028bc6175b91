// The search request (spec 4.1): every field checked, unknown fields and values refused with a
// message that names them (and, for vocabulary values, the nearest valid ones).
import { invalidParameters } from '../http/api-error.ts';
import { describeValue, quoted } from '../http/value-preview.ts';
import { ENERGY_LEVELS, INSTRUMENTS, MOODS, PARENT_GENRES } from '../../catalog/vocabulary.ts';
import { nearest } from '../../search/suggest.ts';
import type { SearchFilters, SearchRequest } from '../../search/request.ts';

const FIELDS = ['query', 'limit', 'offset', 'filters', 'intent', 'facets'];
const FILTER_FIELDS = ['genres', 'moods', 'instruments', 'has_vocals', 'min_bpm', 'max_bpm', 'energy_level'];
export const MAX_QUERY_LENGTH = 500;
// Spaces and invisible format characters (a zero-width space): a query of only these says nothing.
const INVISIBLE = /[\s\p{Cf}]/gu;

function integer(body: Record<string, unknown>, name: string, min: number, max: number, fallback: number): number {
  const value = body[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParameters(`${name} must be an integer from ${min} to ${max}, got ${describeValue(value)}`);
  }
  return value;
}

/**
 * Matches each value case-insensitively against the vocabulary plus the catalog's own values, and
 * keeps every spelling it matches: tracks tagged "Zesty" and "zesty" are both found by either.
 */
function vocabularyList(filters: Record<string, unknown>, name: string, vocabulary: readonly string[], known: readonly string[]): string[] | undefined {
  const value = filters[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string')) {
    throw invalidParameters(`filters.${name} must be a non-empty array of strings`);
  }
  const allowed = [...new Set([...vocabulary, ...known])];
  return [...new Set(value.flatMap((v: string) => {
    const matches = allowed.filter((a) => a.toLowerCase() === v.trim().toLowerCase());
    if (matches.length === 0) throw invalidParameters(`filters.${name}: unknown value ${quoted(v)}; did you mean ${nearest(v, allowed).map((s) => `"${s}"`).join(', ')}?`);
    return matches;
  }))];
}

function bpm(filters: Record<string, unknown>, name: string): number | undefined {
  const value = filters[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 40 || value > 200) throw invalidParameters(`filters.${name} must be a number from 40 to 200, got ${describeValue(value)}`);
  return value;
}

export function validateSearch(body: Record<string, unknown> | undefined, known: { moods: string[]; instruments: string[] }): SearchRequest {
  if (!body) throw invalidParameters('request body must be a JSON object with a query');
  for (const field of Object.keys(body)) if (!FIELDS.includes(field)) throw invalidParameters(`unknown field ${quoted(field)}; allowed: ${FIELDS.join(', ')}`);
  const query = body.query;
  if (query === undefined) throw invalidParameters('query is required');
  if (typeof query !== 'string' || query.replace(INVISIBLE, '') === '') throw invalidParameters('query must be a non-empty string (with something visible)');
  const characters = [...query].length; // code points, as the OpenAPI document's maxLength counts
  if (characters > MAX_QUERY_LENGTH) throw invalidParameters(`query must be at most ${MAX_QUERY_LENGTH} characters, got ${characters}`);
  const limit = integer(body, 'limit', 1, 100, 20);
  const offset = integer(body, 'offset', 0, 1_000_000, 0);
  if (body.intent !== undefined && typeof body.intent !== 'boolean') throw invalidParameters('intent must be true or false');
  if (body.facets !== undefined && typeof body.facets !== 'boolean') throw invalidParameters('facets must be true or false');

  const filters: SearchFilters = {};
  if (body.filters !== undefined) {
    const raw = body.filters;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalidParameters('filters must be an object');
    const f = raw as Record<string, unknown>;
    for (const field of Object.keys(f)) if (!FILTER_FIELDS.includes(field)) throw invalidParameters(`unknown filter ${quoted(field)}; allowed: ${FILTER_FIELDS.join(', ')}`);
    filters.genres = vocabularyList(f, 'genres', PARENT_GENRES, []);
    filters.moods = vocabularyList(f, 'moods', MOODS, known.moods);
    filters.instruments = vocabularyList(f, 'instruments', INSTRUMENTS, known.instruments);
    if (f.has_vocals !== undefined) {
      if (typeof f.has_vocals !== 'boolean') throw invalidParameters('filters.has_vocals must be true or false');
      filters.has_vocals = f.has_vocals;
    }
    filters.min_bpm = bpm(f, 'min_bpm');
    filters.max_bpm = bpm(f, 'max_bpm');
    if (filters.min_bpm !== undefined && filters.max_bpm !== undefined && filters.min_bpm > filters.max_bpm) {
      throw invalidParameters(`filters.min_bpm (${filters.min_bpm}) must not exceed filters.max_bpm (${filters.max_bpm})`);
    }
    if (f.energy_level !== undefined) {
      const level = typeof f.energy_level === 'string' ? ENERGY_LEVELS.find((l) => l === f.energy_level!.toString().toLowerCase()) : undefined;
      if (!level) throw invalidParameters(`filters.energy_level must be low, medium or high, got ${describeValue(f.energy_level)}`);
      filters.energy_level = level;
    }
  }
  return { query: query.trim(), limit, offset, filters, intent: body.intent as boolean | undefined, facets: body.facets === true };
}
