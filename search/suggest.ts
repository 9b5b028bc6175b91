// Nearest valid values for an unknown filter value (edit distance), for error messages.

export function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0];
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j];
      previous[j] = Math.min(previous[j] + 1, previous[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length];
}

export function nearest(value: string, vocabulary: readonly string[], count = 3): string[] {
  const needle = value.toLowerCase();
  return [...vocabulary]
    .map((v) => ({ v, d: editDistance(needle, v.toLowerCase()) - (v.toLowerCase().startsWith(needle.slice(0, 3)) ? 1 : 0) }))
    .sort((a, b) => a.d - b.d || a.v.localeCompare(b.v))
    .slice(0, count)
    .map((x) => x.v);
}
