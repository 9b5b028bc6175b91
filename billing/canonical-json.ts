// Canonical JSON: one serialisation per value, so two parties that hold the same value make the
// same bytes (what a signature or a fingerprint is computed over). It is RFC 8785 (JCS) for the
// values we write (strings, finite numbers, booleans, null, arrays, plain objects): object members
// sorted by key (UTF-16 code units, JavaScript's default sort), no whitespace, strings and numbers
// as JSON.stringify writes them (which is what JCS specifies), members whose value is undefined
// left out. JCS libraries exist for most languages, so a third party can reproduce it.

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record).sort().filter((k) => record[k] !== undefined);
    return `{${members.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
