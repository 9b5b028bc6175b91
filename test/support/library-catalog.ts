// A library-shaped catalog drawn from the committed tag distribution (library-distribution.ts),
// deterministically: the same seed and size give the same tracks on every machine. Each track is
// one style's (its parent genre, one or two of its genre tags, one to three mood/theme tags, two
// to four instruments by specific name, energy, vocals, BPM), sometimes a theme overlaid (its tags
// and words), described the way library copy reads, and credited to one of its style's artists.
import { ARTIST_FIRST, ARTIST_LAST, STYLES, THEMES, TITLE_WORDS, USE_PHRASES, type Style } from './library-distribution.ts';
import type { TrackMetadata } from './catalog-rows.ts';

export const LIBRARY_CATALOG_SIZE = 3000;
export const LIBRARY_CATALOG_SEED = 87;
/** Artists per style: a dozen or more tracks each, as a label's roster. */
const ARTISTS_PER_STYLE = 9;
/** A theme fitting a track's style is overlaid with this multiple of its share. */
const THEME_SHARE_SCALE = 2;
/** Share of descriptions that end with a use phrase ("for video, ads and film"). */
const USE_PHRASE_SHARE = 0.6;
const ENERGY = ['low', 'medium', 'high'] as const;
const VOCAL_INSTRUMENTS = new Set(['Voice', 'Choir']);

type Random = () => number;

/** mulberry32: a small seeded generator, the same sequence everywhere. */
function seeded(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** "Tag weight, Tag weight" as [tag, weight] pairs. */
function weighted(list: string): [string, number][] {
  return list.split(',').map((item) => {
    const m = /^\s*(.+?)\s+([\d.]+)\s*$/.exec(item);
    if (!m) throw new Error(`library distribution: "${item}" is not "Tag weight"`);
    return [m[1], Number(m[2])];
  });
}

function pickWeighted<T>(random: Random, items: [T, number][]): T {
  const total = items.reduce((s, [, w]) => s + w, 0);
  let r = random() * total;
  for (const [item, w] of items) if ((r -= w) < 0) return item;
  return items[items.length - 1][0];
}

/** `count` distinct tags drawn by weight. */
function drawDistinct(random: Random, items: [string, number][], count: number): string[] {
  const left = [...items];
  const out: string[] = [];
  while (out.length < count && left.length > 0) {
    const tag = pickWeighted(random, left);
    out.push(tag);
    left.splice(left.findIndex(([t]) => t === tag), 1);
  }
  return out;
}

const between = (random: Random, from: number, to: number) => from + Math.floor(random() * (to - from + 1));

function describe(random: Random, style: Style, energy: string, subgenres: string[], moods: string[], instruments: string[], themeWords: string[]): string {
  const feel = energy === 'high' ? 'driving' : energy === 'low' ? 'gentle' : 'steady';
  const parts = [`${feel} ${subgenres[0].toLowerCase()} track with ${instruments.map((i) => i.toLowerCase()).join(', ')}`, moods.map((m) => m.toLowerCase()).join(' and ')];
  if (themeWords.length) parts.push(themeWords.join(', '));
  if (random() < USE_PHRASE_SHARE) parts.push(USE_PHRASES[Math.floor(random() * USE_PHRASES.length)]);
  return parts.join(', ');
}

export function libraryCatalog(size = LIBRARY_CATALOG_SIZE, seed = LIBRARY_CATALOG_SEED): TrackMetadata[] {
  const random = seeded(seed);
  const styles = STYLES.map((s) => [s, s.share] as [Style, number]);
  return Array.from({ length: size }, () => {
    const style = pickWeighted(random, styles);
    const hasVocals = random() < style.vocals;
    const energy = pickWeighted(random, ENERGY.map((e, k) => [e, style.energy[k]] as [string, number]));
    const subgenres = drawDistinct(random, weighted(style.subgenres), between(random, 1, 2));
    const moods = drawDistinct(random, weighted(style.moods), between(random, 1, 3));
    const instrumentChoices = weighted(style.instruments).filter(([i]) => !VOCAL_INSTRUMENTS.has(i));
    const instruments = drawDistinct(random, instrumentChoices, between(random, 2, 4));
    if (hasVocals) instruments.push(weighted(style.instruments).some(([i]) => i === 'Choir') && random() < 0.5 ? 'Choir' : 'Voice');
    const themeWords: string[] = [];
    for (const theme of THEMES) {
      if (theme.genres.length && !theme.genres.includes(style.genre)) continue;
      if (random() >= theme.share * THEME_SHARE_SCALE) continue;
      for (const m of drawDistinct(random, weighted(theme.moods), between(random, 1, 2))) if (!moods.includes(m)) moods.push(m);
      const [instrument] = drawDistinct(random, weighted(theme.instruments), 1);
      if (random() < 0.5 && !instruments.includes(instrument)) instruments.push(instrument);
      themeWords.push(...drawDistinct(random, theme.words.map((w) => [w, 1] as [string, number]), 2));
    }
    const artistIndex = Math.floor(random() * ARTISTS_PER_STYLE);
    const styleIndex = STYLES.indexOf(style);
    const artist = `${ARTIST_FIRST[(styleIndex * 7 + artistIndex) % ARTIST_FIRST.length]} ${ARTIST_LAST[(styleIndex * 3 + artistIndex * 11) % ARTIST_LAST.length]}`;
    const title = `${TITLE_WORDS[Math.floor(random() * TITLE_WORDS.length)]} ${TITLE_WORDS[Math.floor(random() * TITLE_WORDS.length)]}`;
    return {
      title,
      artist,
      genre: style.genre,
      subgenres,
      moods,
      instruments,
      has_vocals: hasVocals,
      energy_level: energy,
      bpm: between(random, style.bpm[0], style.bpm[1]),
      description: describe(random, style, energy, subgenres, moods, instruments, themeWords),
    };
  });
}
