// Query understanding: a query's words turned into the lexicon's concepts ("something for a car
// commercial" -> car commercial; "calm music without vocals" -> calm, not vocals, anything), with
// negation ("no", "not too", "without" reach the next concept, and the ones joined to it by "or"
// or "and"), word forms and synonyms through WordNet ("gloomier" -> gloomy), typos of lexicon
// words ("relaxng" -> relaxing), and explicit tempi ("around 120 bpm"). What is left over is
// reported as not understood. Pure and deterministic; results are cached per query.
import { LRUCache } from 'lru-cache';
import { conceptNamed, type Concept, type Lexicon } from './lexicon.ts';
import { tokens } from './tokens.ts';
import { editDistance } from './suggest.ts';
import { candidateBaseForms, type PartOfSpeech, type WordNet } from './wordnet.ts';

export interface UnderstoodConcept {
  concept: Concept;
  /** The query's words that named it ("no vocals" when negated). */
  phrase: string;
  negated: boolean;
  /** 1 for a lexicon phrase; less when reached through a related word or a typo. */
  strength: number;
  /** The lexicon phrase a WordNet relative or typo led to ("gloomier" -> "gloomy"). */
  via?: string;
}

export interface Understanding {
  concepts: UnderstoodConcept[];
  /** A word meaning "any music" ("music", "songs", "tracks"). */
  anything: boolean;
  /** Words for the text search: not stopwords, not negated, not "music". */
  textWords: string[];
  /** Words that are neither in the lexicon (directly, as a form, relative or typo) nor meaningless. */
  notUnderstood: string[];
}

/** An explicit tempo ("120 bpm", "around 90 bpm") fits within this many BPM either side. */
export const EXPLICIT_BPM_TOLERANCE = 8;
const BPM_RANGE = { min: 40, max: 220 };
/** A typo is corrected only to a lexicon word this close (edits), by word length. */
const typoEditsAllowed = (length: number) => (length >= 8 ? 2 : length >= 4 ? 1 : 0);
/** A typo-corrected word counts a little less than the word typed right. */
const TYPO_STRENGTH = 0.9;
/** WordNet relatives weaker than this are too far to trust. */
const MIN_RELATIVE_CLOSENESS = 0.5;
/** Words that carry a negation on to the next concept ("no drums or bass"). */
const CONJUNCTIONS = new Set(['or', 'nor', 'and']);
/** How many tokens a negation reaches forward (past intensifiers and stopwords). */
const NEGATION_REACH = 3;
const PARTS: PartOfSpeech[] = ['noun', 'verb', 'adj'];

function explicitBpmConcept(bpm: number): Concept {
  return {
    name: `${bpm} bpm`,
    genres: new Map(), moods: new Map(), instruments: new Map(), energy: new Map(),
    tempo: [{ from: bpm - EXPLICIT_BPM_TOLERANCE, to: bpm + EXPLICIT_BPM_TOLERANCE + 1e-9, weight: 1, explicit: true }],
    vocals: { with: 0, without: 0 },
    filter: true,
  };
}

export function createQueryUnderstanding(lexicon: Lexicon, wordnet: WordNet) {
  const cache = new LRUCache<string, Understanding>({ max: 20_000 });
  const phraseTokens = [...lexicon.phraseTokens];
  /** Words that name no concept: stopwords, "music", negations, intensifiers, numbers. */
  const meaningless = (t: string) => lexicon.stopwords.has(t) || lexicon.generic.has(t) || lexicon.negations.has(t) || lexicon.intensifiers.has(t) || /^\d+$/.test(t);

  /** The word as the lexicon knows it: itself, a base form of it, or (not a real word) a close lexicon word. */
  function normalise(token: string): { word: string; typo: boolean } {
    if (lexicon.phraseTokens.has(token) || meaningless(token)) return { word: token, typo: false };
    for (const part of PARTS) for (const form of candidateBaseForms(token, part)) if (lexicon.phraseTokens.has(form)) return { word: form, typo: false };
    if (wordnet.knows(token)) return { word: token, typo: false };
    const allowed = typoEditsAllowed(token.length);
    let best: string | null = null;
    let bestDistance = allowed + 1;
    for (const candidate of phraseTokens) {
      if (Math.abs(candidate.length - token.length) > allowed) continue;
      const d = editDistance(token, candidate);
      if (d < bestDistance || (d === bestDistance && best !== null && candidate < best)) [best, bestDistance] = [candidate, d];
    }
    return best ? { word: best, typo: true } : { word: token, typo: false };
  }

  /** The longest lexicon phrase starting at token i: its concept and length. */
  function phraseAt(words: string[], i: number): { concept: Concept; length: number } | null {
    for (const phrase of lexicon.phrasesByFirstToken.get(words[i]) ?? []) {
      if (phrase.tokens.every((t, k) => words[i + k] === t)) return { concept: phrase.concept, length: phrase.tokens.length };
    }
    return null;
  }

  /** The closest WordNet relative of a word that the lexicon has as a phrase. */
  function relativeConcept(word: string): { concept: Concept; via: string; closeness: number } | null {
    for (const { word: relative, closeness } of wordnet.related(word)) {
      if (closeness < MIN_RELATIVE_CLOSENESS) break;
      const concept = conceptNamed(lexicon, relative);
      if (concept) return { concept, via: relative, closeness };
    }
    return null;
  }

  function understand(query: string): Understanding {
    const typed = tokens(query);
    const normalised = typed.map(normalise);
    const words = normalised.map((n) => n.word);
    const result: Understanding = { concepts: [], anything: false, textWords: [], notUnderstood: [] };
    let negationLeft = 0; // tokens a pending negation still reaches
    let negateNext = false; // the concept before was negated and a conjunction follows
    for (let i = 0; i < words.length; ) {
      const word = words[i];
      const bpm = /^\d{2,3}$/.test(word) && words[i + 1] === 'bpm' ? Number(word) : NaN;
      if (bpm >= BPM_RANGE.min && bpm <= BPM_RANGE.max) {
        // A tempo that is not wanted ("not 120 bpm") names no range to keep: it is reported as not
        // understood, and the negation ends here rather than reaching the next word.
        if (negationLeft > 0 || negateNext) result.notUnderstood.push(`not ${bpm} bpm`);
        else result.concepts.push({ concept: explicitBpmConcept(bpm), phrase: `${bpm} bpm`, negated: false, strength: 1 });
        negationLeft = 0;
        negateNext = false;
        i += 2;
        continue;
      }
      const phrase = phraseAt(words, i);
      const relative = phrase || meaningless(word) ? null : relativeConcept(word);
      if (phrase || relative) {
        const negated: boolean = negationLeft > 0 || negateNext;
        const length = phrase ? phrase.length : 1;
        const phraseWords = words.slice(i, i + length);
        const named = phraseWords.join(' ');
        const typedPhrase = typed.slice(i, i + length).join(' ');
        const strength = (relative ? relative.closeness : 1) * (normalised[i].typo ? TYPO_STRENGTH : 1);
        const via = relative ? relative.via : named;
        result.concepts.push({
          concept: phrase ? phrase.concept : relative!.concept,
          phrase: negated ? `no ${typedPhrase}` : typedPhrase,
          negated,
          strength,
          ...(via !== typedPhrase ? { via } : {}),
        });
        // A negated phrase ("no vocals", "without drums") must not find tracks by its words.
        if (!negated && !phraseWords.some((w) => lexicon.negations.has(w))) result.textWords.push(...phraseWords);
        negationLeft = 0;
        negateNext = negated && CONJUNCTIONS.has(words[i + length]);
        i += length + (negateNext ? 1 : 0);
        continue;
      }
      negateNext = false;
      if (lexicon.negations.has(word)) negationLeft = NEGATION_REACH + 1;
      else if (lexicon.generic.has(word)) result.anything = true;
      else if (!meaningless(word)) {
        result.notUnderstood.push(typed[i]);
        result.textWords.push(typed[i]);
      }
      if (negationLeft > 0) negationLeft--;
      i++;
    }
    return result;
  }

  return {
    understand(query: string): Understanding {
      const key = query.toLowerCase();
      let understood = cache.get(key);
      if (!understood) cache.set(key, (understood = understand(query)));
      return understood;
    },
  };
}

export type QueryUnderstanding = ReturnType<typeof createQueryUnderstanding>;
