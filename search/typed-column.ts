// Append-only typed arrays that double when full. The search index keeps its numbers in these
// rather than in JS arrays: the JIT reads them without type checks, and the garbage collector
// never has to walk their millions of elements.
type TypedArray = Int32Array | Float32Array | Float64Array;

export interface Column<T extends TypedArray> {
  data: T;
  length: number;
  /** A new array of the same kind (the column's constructor). */
  make: (size: number) => T;
}

export function column<T extends TypedArray>(make: (size: number) => T, capacity = 8): Column<T> {
  return { data: make(capacity), length: 0, make };
}

export function push<T extends TypedArray>(c: Column<T>, value: number): void {
  if (c.length === c.data.length) {
    const bigger = c.make(c.data.length * 2);
    bigger.set(c.data as never);
    c.data = bigger;
  }
  c.data[c.length++] = value;
}

export const int32 = (n: number) => new Int32Array(n);
export const float32 = (n: number) => new Float32Array(n);
export const float64 = (n: number) => new Float64Array(n);

/** A list per document, stored flat: document d's values are values[start[d] .. start[d + 1]). */
export interface ListColumn {
  start: Column<Int32Array>;
  values: Column<Int32Array>;
  append(list: number[]): void;
}

export function createListColumn(): ListColumn {
  const start = column(int32);
  const values = column(int32);
  push(start, 0);
  return {
    start,
    values,
    append(list) {
      for (const v of list) push(values, v);
      push(start, values.length);
    },
  };
}
