// Tags of more than one word ("Drum and Bass", "Acoustic Guitar") as text terms of their own. A
// track carries the phrase term of each such tag it has, and a query the phrase term of each run
// of its words, so a query that names the tag ranks the tracks filed under it above tracks that
// only have its words in other tags ("Bass", "Drum Machine"). Terms are matched as prefixes
// (text-postings.ts), so a phrase term begins and ends with PHRASE_MARK, which no PostgreSQL
// lexeme holds: no word's term reaches a phrase ("drum" is not a prefix of it), and a phrase
// reaches no other phrase ("drum and" is not the tag "drum and bass").
import { tokens } from './tokens.ts';

const PHRASE_MARK = '\u0001';
/** A query's runs of up to this many words are read as tag phrases (the longest tags have 3). */
const MAX_PHRASE_WORDS = 4;

/** The phrase term of a run of words. */
const phraseTerm = (words: string[]) => PHRASE_MARK + words.join(' ') + PHRASE_MARK;

/** The phrase terms of a track's tags: one per tag of two or more words. */
export function tagPhraseTerms(tags: Iterable<string>): string[] {
  const terms = new Set<string>();
  for (const tag of tags) {
    const words = tokens(tag);
    if (words.length > 1) terms.add(phraseTerm(words));
  }
  return [...terms];
}

/** The phrase term of every run of 2 to MAX_PHRASE_WORDS consecutive query words (as the lexicon normalised them). */
export function queryPhraseTerms(words: string[]): string[] {
  const terms = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    for (let n = 2; n <= MAX_PHRASE_WORDS && i + n <= words.length; n++) terms.add(phraseTerm(words.slice(i, i + n)));
  }
  return [...terms];
}
