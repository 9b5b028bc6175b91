// The grading rule of the library queries (library-queries.ts): a track's gain = the share of a
// query's aspects it meets, an aspect met when the track carries any of its tags (genre,
// subgenres, moods, instruments; case aside) or the field an "energy:"/"vocals:" tag names.
import { judgeByGains } from './relevance.ts';

export interface GradedTrack { id: string; genre: string | null; subgenres: string[]; moods: string[]; instruments: string[]; energy_level: string | null; has_vocals: boolean | null }

function meets(t: GradedTrack, tags: Set<string>, tag: string): boolean {
  if (tag.startsWith('energy:')) return t.energy_level === tag.slice('energy:'.length);
  if (tag === 'vocals:yes') return t.has_vocals === true;
  if (tag === 'vocals:no') return t.has_vocals === false;
  return tags.has(tag.toLowerCase());
}

export function libraryGain(t: GradedTrack, aspects: string[][]): number {
  const tags = new Set([t.genre ?? '', ...t.subgenres, ...t.moods, ...t.instruments].map((v) => v.toLowerCase()));
  return aspects.filter((aspect) => aspect.some((tag) => meets(t, tags, tag))).length / aspects.length;
}

export function judgeLibrary(rankedIds: string[], catalog: GradedTrack[], aspects: string[][]) {
  return judgeByGains(rankedIds, new Map(catalog.map((t) => [t.id, libraryGain(t, aspects)])));
}
