// Strings numbered in order of first sight: a filter value, a mood, a trigram becomes a small
// integer that indexes typed arrays.
export interface Numbering {
  number(value: string): number;
  find(value: string): number | undefined;
  size(): number;
  values(): string[];
}

export function createNumbering(): Numbering {
  const numberOf = new Map<string, number>();
  return {
    number(value) {
      let n = numberOf.get(value);
      if (n === undefined) numberOf.set(value, (n = numberOf.size));
      return n;
    },
    find: (value) => numberOf.get(value),
    size: () => numberOf.size,
    values: () => [...numberOf.keys()],
  };
}
