// The k best of a stream by score descending, ties by `before` (a min-heap of the current best):
// a search keeps its page in O(matches * log k) without sorting every match.
export interface TopK {
  offer(doc: number, score: number): void;
  /** Whether offer(doc, score) would keep it: there is room, or it ranks above the worst kept. */
  accepts(doc: number, score: number): boolean;
  sorted(): { doc: number; score: number }[];
  /** The worst kept entry once k are kept (what a newcomer must beat), else null. */
  worst(): { doc: number; score: number } | null;
}

export function createTopK(k: number, before: (a: number, b: number) => boolean): TopK {
  const docs: number[] = [];
  const scores: number[] = [];
  // worse(i, j): entry i ranks below entry j.
  const worse = (i: number, j: number) => scores[i] < scores[j] || (scores[i] === scores[j] && before(docs[j], docs[i]));
  const swap = (i: number, j: number) => {
    // Not by destructuring: that allocates two arrays per swap, a sixth of a search's garbage.
    const doc = docs[i];
    docs[i] = docs[j];
    docs[j] = doc;
    const score = scores[i];
    scores[i] = scores[j];
    scores[j] = score;
  };
  function accepts(doc: number, score: number): boolean {
    if (docs.length < k) return k > 0;
    return !(score < scores[0] || (score === scores[0] && !before(doc, docs[0])));
  }
  function siftDown(i: number) {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < docs.length && worse(l, w)) w = l;
      if (r < docs.length && worse(r, w)) w = r;
      if (w === i) return;
      swap(i, w);
      i = w;
    }
  }
  function siftUp(i: number) {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!worse(i, parent)) return;
      swap(i, parent);
      i = parent;
    }
  }
  return {
    offer(doc, score) {
      if (k <= 0) return;
      if (docs.length < k) {
        docs.push(doc);
        scores.push(score);
        siftUp(docs.length - 1);
        return;
      }
      if (!accepts(doc, score)) return;
      docs[0] = doc; // replaces the worst kept entry
      scores[0] = score;
      siftDown(0);
    },
    accepts,
    worst: () => (docs.length >= k && k > 0 ? { doc: docs[0], score: scores[0] } : null),
    sorted() {
      const order = docs.map((_, i) => i).sort((i, j) => (worse(i, j) ? 1 : worse(j, i) ? -1 : 0));
      return order.map((i) => ({ doc: docs[i], score: scores[i] }));
    },
  };
}
