// Intent extraction: genres, moods, tempo, instruments, vocals and energy read from the words of
// a query ("slow", "around 120 bpm", "no vocals", "uplifting", "dark cinematic trailer", "lofi
// beats to study", "for a workout video"), with synonyms and simple negation ("no", "without",
// "not"). A pure function: deterministic, explainable, fast.
import { INSTRUMENTS, MOODS } from '../catalog/vocabulary.ts';
import type { SearchFilters } from './request.ts';

export interface Intent extends SearchFilters {
  /** The phrases that produced it, for clients to show. */
  matched: string[];
}

const GENRE_WORDS: [RegExp, string[]][] = [
  [/\b(lo-?fi|boom ?bap|hip ?hop|hiphop|rap)\b/, ['Hip Hop']],
  [/\bbeats\b/, ['Hip Hop', 'Beats']],
  [/\b(trailer|cinematic|film score|movie|epic orchestral)\b/, ['Cinematic']],
  [/\b(edm|club)\b/, ['House', 'Dance', 'Electronic']],
  [/\bhouse\b/, ['House']],
  [/\bdance\b/, ['Dance', 'House']],
  [/\b(drum and bass|drum ?n ?bass|dnb|synthwave|techno|electronic)\b/, ['Electronic']],
  [/\b(rock|indie rock|alternative)\b/, ['Rock']],
  [/\bjazz(y)?\b/, ['Jazz']],
  [/\b(classical|orchestral|chamber|string quartet)\b/, ['Classical']],
  [/\bacoustic\b/, ['Acoustic', 'Folk']],
  [/\b(folk|americana|campfire)\b/, ['Folk', 'Acoustic']],
  [/\bpop\b/, ['Pop']],
  [/\bfunk(y)?\b/, ['Funk']],
  [/\b(ambient|drone|meditation)\b/, ['Ambient']],
  [/\b(downtempo|chillout|chill-out|trip ?hop)\b/, ['Downtempo']],
];

const MOOD_WORDS: [RegExp, string[]][] = [
  [/\b(uplifting|inspirational|motivational)\b/, ['Inspiring', 'Hopeful', 'Happy']],
  [/\b(cheerful|joyful|sunny)\b/, ['Happy']],
  [/\b(relaxing|soothing|tranquil)\b/, ['Calm', 'Peaceful']],
  [/\b(sad|sorrowful|mournful)\b/, ['Sad', 'Melancholic']],
  [/\b(spooky|horror|creepy)\b/, ['Scary', 'Suspense']],
  [/\b(tense|tension)\b/, ['Suspense']],
  [/\b(love|loving)\b/, ['Romantic']],
  [/\b(powerful|huge|massive)\b/, ['Epic']],
  [/\b(funny|playful)\b/, ['Fun', 'Quirky']],
];

const ENERGY_WORDS: [RegExp, 'low' | 'medium' | 'high'][] = [
  [/\b(calm|relaxing|sleep|study(ing)?|meditation|background|ambient|gentle|soft|quiet|peaceful)\b/, 'low'],
  [/\b(energetic|workout|gym|running|driving|intense|high energy|party|action|hype|upbeat|powerful)\b/, 'high'],
  [/\b(moderate|medium energy|mid-?tempo)\b/, 'medium'],
];

const INSTRUMENT_WORDS: [RegExp, string][] = [
  [/\bpianos?\b/, 'Piano'], [/\bkeys\b/, 'Piano'], [/\bguitars?\b/, 'Guitar'], [/\bdrums?\b/, 'Drums'], [/\bbass\b/, 'Bass'],
  [/\bsynths?\b|\bsynthesi[sz]er/, 'Synth'], [/\bstrings?\b|\bviolins?\b|\bcellos?\b/, 'Strings'], [/\bbrass\b|\btrumpets?\b|\bhorns?\b/, 'Brass'],
  [/\bwoodwinds?\b|\bflutes?\b|\bclarinets?\b/, 'Woodwinds'], [/\bpercussion\b|\bshakers?\b/, 'Percussion'], [/\borgan\b/, 'Organ'], [/\bharp\b/, 'Harp'],
];

const NEGATION = /\b(no|without|not|non|minus)\s+(?:any\s+)?$/;

function negated(text: string, index: number): boolean {
  return NEGATION.test(text.slice(Math.max(0, index - 16), index));
}

// Global copies of the patterns, made once per pattern (so patterns live in module constants): a
// RegExp, and matchAll's clone of it, per pattern per query was a fifth of a search's allocations.
const globalCopies = new WeakMap<RegExp, RegExp>();

/**
 * Adds the pattern's matches that are not negated ("no vocals") to `matched`, each phrase once
 * (a word can say two things, "calm" a mood and an energy); true if there was one.
 */
function collect(text: string, pattern: RegExp, matched: string[]): boolean {
  let global = globalCopies.get(pattern);
  if (!global) globalCopies.set(pattern, (global = new RegExp(pattern.source, 'g')));
  global.lastIndex = 0;
  let hit = false;
  for (let m = global.exec(text); m !== null; m = global.exec(text)) {
    if (negated(text, m.index)) continue;
    if (!matched.includes(m[0])) matched.push(m[0]);
    hit = true;
  }
  return hit;
}

const VOCAL_WORDS = /\b(vocals?|singing|singer|sung|voice|lyrics|female vocals|male vocals)\b/;
const SLOW_WORDS = /\b(slow|slower|ballad)\b/;
const FAST_WORDS = /\b(fast|uptempo|up-tempo|rapid)\b/;
const MOOD_NAMES: [RegExp, string][] = MOODS.map((mood) => [new RegExp(`\\b${mood.toLowerCase()}\\b`), mood]);

export function extractIntent(query: string): Intent {
  const text = ` ${query.toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, ' ').replace(/\s+/g, ' ')} `;
  const matched: string[] = [];
  const intent: Intent = { matched };
  const genres = new Set<string>();
  for (const [pattern, values] of GENRE_WORDS) if (collect(text, pattern, matched)) values.forEach((v) => genres.add(v));
  if (genres.size) intent.genres = [...genres];

  const moods = new Set<string>();
  for (const [pattern, mood] of MOOD_NAMES) if (collect(text, pattern, matched)) moods.add(mood);
  for (const [pattern, values] of MOOD_WORDS) if (collect(text, pattern, matched)) values.forEach((v) => moods.add(v));
  if (moods.size) intent.moods = [...moods];

  const instruments = new Set<string>();
  for (const [pattern, name] of INSTRUMENT_WORDS) if (collect(text, pattern, matched)) instruments.add(name);
  if (instruments.size) intent.instruments = [...instruments].filter((i) => (INSTRUMENTS as readonly string[]).includes(i));

  if (/\b(no|without|not)\s+(any\s+)?(vocals?|singing|voice|lyrics)\b|\binstrumental\b/.test(text)) {
    intent.has_vocals = false;
    matched.push('no vocals');
  } else if (collect(text, VOCAL_WORDS, matched)) {
    intent.has_vocals = true;
  }

  const around = /\b(?:around|about|~|at)?\s*(\d{2,3})\s*bpm\b/.exec(text);
  if (around) {
    const bpm = Number(around[1]);
    if (bpm >= 40 && bpm <= 200) {
      intent.min_bpm = Math.max(40, bpm - 8);
      intent.max_bpm = Math.min(200, bpm + 8);
      matched.push(around[0].trim());
    }
  } else if (collect(text, SLOW_WORDS, matched)) {
    intent.max_bpm = 95;
  } else if (collect(text, FAST_WORDS, matched)) {
    intent.min_bpm = 120;
  }

  for (const [pattern, level] of ENERGY_WORDS) {
    if (collect(text, pattern, matched)) {
      intent.energy_level = level;
      break;
    }
  }
  return intent;
}

/** Explicit filters win field by field; the intent fills the rest. */
export function mergeFilters(explicit: SearchFilters, intent: Intent): SearchFilters {
  const { matched: _matched, ...inferred } = intent;
  const merged: SearchFilters = { ...inferred };
  for (const [field, value] of Object.entries(explicit)) if (value !== undefined) (merged as Record<string, unknown>)[field] = value;
  if (explicit.min_bpm !== undefined || explicit.max_bpm !== undefined) {
    merged.min_bpm = explicit.min_bpm;
    merged.max_bpm = explicit.max_bpm;
  }
  return merged;
}
