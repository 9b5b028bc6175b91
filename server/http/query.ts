// Query-string validation: unknown or repeated parameters and malformed numbers are 400s that name them.
import { invalidParameters } from './api-error.ts';

export function rejectQueryParameters(query: URLSearchParams, allowed: string[]): void {
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (!allowed.includes(name)) {
      const hint = allowed.length ? `; allowed: ${allowed.join(', ')}` : '; this endpoint takes no query parameters';
      throw invalidParameters(`unknown query parameter "${name}"${hint}`);
    }
    if (seen.has(name)) throw invalidParameters(`query parameter "${name}" given more than once`);
    seen.add(name);
  }
}

export function integerQueryParameter(
  query: URLSearchParams,
  name: string,
  rule: { min: number; max: number; fallback: number },
): number {
  const raw = query.get(name);
  if (raw === null) return rule.fallback;
  // Up to 16 digits: every safe integer, and no digit string so long that Number() rounds it into range.
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < rule.min || value > rule.max) {
    throw invalidParameters(`${name} must be an integer from ${rule.min} to ${rule.max}, got "${raw}"`);
  }
  return value;
}
