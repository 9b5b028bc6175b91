// Graded relevance of a ranked list: a track's gain for a query is the share of the judgment's
// aspects it satisfies (genre, moods, instruments, energy, vocals, bpm: any listed value);
// nDCG@10 against the best ordering the catalog allows, and precision@5 counting the tracks that
// satisfy every aspect.
export interface Judgment { genres?: string[]; moods?: string[]; instruments?: string[]; energy?: ('low' | 'medium' | 'high')[]; vocals?: boolean; bpm?: [number, number] }
export interface JudgedTrack { id: string; genre: string; moods: string[]; instruments: string[]; energy_level: string; has_vocals: boolean; bpm: number }

export function gain(t: JudgedTrack, want: Judgment): number {
  const aspects: boolean[] = [];
  if (want.genres) aspects.push(want.genres.includes(t.genre));
  if (want.moods) aspects.push(t.moods.some((m) => want.moods!.includes(m)));
  if (want.instruments) aspects.push(t.instruments.some((i) => want.instruments!.includes(i)));
  if (want.energy) aspects.push(want.energy.includes(t.energy_level as 'low'));
  if (want.vocals !== undefined) aspects.push(t.has_vocals === want.vocals);
  if (want.bpm) aspects.push(t.bpm >= want.bpm[0] && t.bpm <= want.bpm[1]);
  return aspects.length ? aspects.filter(Boolean).length / aspects.length : 0;
}

const discount = (rank: number) => 1 / Math.log2(rank + 2);

export function judge(rankedIds: string[], catalog: JudgedTrack[], want: Judgment) {
  return judgeByGains(rankedIds, new Map(catalog.map((t) => [t.id, gain(t, want)])));
}

/** nDCG@10 and P@5 of a ranked list, given every catalog track's gain (1: fully relevant). */
export function judgeByGains(rankedIds: string[], gains: Map<string, number>) {
  const ideal = [...gains.values()].sort((a, b) => b - a).slice(0, 10).reduce((sum, g, i) => sum + g * discount(i), 0);
  const dcg = rankedIds.slice(0, 10).reduce((sum, id, i) => sum + (gains.get(id) ?? 0) * discount(i), 0);
  const fullyRelevant = [...gains.values()].filter((g) => g === 1).length;
  const precision5 = rankedIds.slice(0, 5).filter((id) => gains.get(id) === 1).length / Math.min(5, fullyRelevant || 1);
  return { ndcg10: ideal > 0 ? dcg / ideal : 0, precision5, fullyRelevant };
}
