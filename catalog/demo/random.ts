// A small seeded PRNG (mulberry32): the demo catalog is the same bytes for the same seed.
export interface Random {
  next(): number; // [0, 1)
  int(min: number, max: number): number; // inclusive
  pick<T>(items: readonly T[]): T;
  some<T>(items: readonly T[], min: number, max: number): T[];
  signed(): number; // [-1, 1)
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => items[Math.floor(next() * items.length)],
    some(items, min, max) {
      const pool = [...items];
      const count = Math.min(pool.length, int(min, max));
      const out = [];
      for (let i = 0; i < count; i++) out.push(pool.splice(Math.floor(next() * pool.length), 1)[0]);
      return out;
    },
    signed: () => next() * 2 - 1,
  };
}
