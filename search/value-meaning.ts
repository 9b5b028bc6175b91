// What a catalog's own tag means in our vocabularies: a spec value means itself; another value
// ("Uplifting", "Violin", "Lofi Hip Hop") means what the lexicon understands of it, so tracks
// tagged outside the spec's lists still fit the queries that want their meaning.
import { INSTRUMENTS, MOODS, PARENT_GENRES } from '../catalog/vocabulary.ts';
import type { ValueMeaning } from './query-profile.ts';
import type { QueryUnderstanding } from './understand.ts';

const VOCABULARIES = { genres: PARENT_GENRES, moods: MOODS, instruments: INSTRUMENTS } as const;

export function createValueMeaning(understanding: QueryUnderstanding): ValueMeaning {
  const cache = new Map<string, Map<string, number>>();
  return (group, value) => {
    const key = `${group}\u0000${value}`;
    let meaning = cache.get(key);
    if (meaning) return meaning;
    const spelled = VOCABULARIES[group].find((v) => v.toLowerCase() === value.toLowerCase());
    meaning = new Map<string, number>();
    if (spelled) meaning.set(spelled, 1);
    else {
      for (const { concept, negated, strength } of understanding.understand(value).concepts) {
        if (negated) continue;
        for (const [v, w] of concept[group]) meaning.set(v, Math.max(meaning.get(v) ?? 0, w * strength));
      }
    }
    cache.set(key, meaning);
    return meaning;
  };
}
