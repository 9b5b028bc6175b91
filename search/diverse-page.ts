// A page that is not ten near-copies: the best DIVERSITY_POOL tracks by score are reordered by
// maximal marginal relevance (each place goes to the track whose score, less REDUNDANCY_COST times
// its likeness to the tracks already placed, is highest), so that a track of another genre or
// artist nearly as good comes before the fifth of one genre. The first place is always the best
// track. Beyond the pool the order is by score. The pool is the same whatever the page size
// asks for, so pages concatenate to one ordered list.

/** Tracks reordered for variety: the page's top, as deep as people look at one list. */
export const DIVERSITY_POOL = 50;
/** Score a track gives up for being like one already placed (scores are up to ~2.4; a full profile fit is 1). */
const REDUNDANCY_COST = 0.08;
/** Likeness of two tracks: of the same parent genre, by the same artist (summed, at most 1). */
const LIKENESS = { genre: 0.5, artist: 0.5 } as const;

export interface PageCandidate {
  doc: number;
  score: number;
}

/**
 * The candidates (best first) in page order. `genreOf` and `artistOf` give a document's numbers
 * (-1: none, which is like nothing).
 */
export function diversePage(candidates: PageCandidate[], genreOf: (doc: number) => number, artistOf: (doc: number) => number): PageCandidate[] {
  const pool = candidates.slice(0, DIVERSITY_POOL);
  const placed: PageCandidate[] = [];
  const genresPlaced = new Set<number>();
  const artistsPlaced = new Set<number>();
  while (pool.length > 0) {
    let pick = 0;
    let pickValue = -Infinity;
    for (let k = 0; k < pool.length; k++) {
      const { doc, score } = pool[k];
      // Stops once no later candidate can win: likeness only lowers a score.
      if (score <= pickValue) break;
      const genre = genreOf(doc);
      const artist = artistOf(doc);
      const likeness = Math.min(1, (genre >= 0 && genresPlaced.has(genre) ? LIKENESS.genre : 0) + (artist >= 0 && artistsPlaced.has(artist) ? LIKENESS.artist : 0));
      const value = score - REDUNDANCY_COST * likeness;
      if (value > pickValue) [pick, pickValue] = [k, value];
    }
    const [chosen] = pool.splice(pick, 1);
    placed.push(chosen);
    genresPlaced.add(genreOf(chosen.doc));
    artistsPlaced.add(artistOf(chosen.doc));
  }
  return [...placed, ...candidates.slice(DIVERSITY_POOL)];
}
