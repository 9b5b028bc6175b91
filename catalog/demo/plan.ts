// A demo track's plan, drawn from its seed: style, names, tempo, key, arrangement, and the ground
// truth (climax time, vocals, energy) that the rendered audio is built to match.
import { seededRandom } from './random.ts';
import { STYLES, INSTRUMENT_OF_PART, TITLE_WORDS, ARTIST_WORDS, type Style } from './styles.ts';
import type { EnergyLevel } from '../vocabulary.ts';

export const NOTE_NAMES = ['C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B'];

export type SectionName = 'intro' | 'verse' | 'chorus' | 'build' | 'climax' | 'outro';

export interface Section {
  name: SectionName;
  startBar: number;
  bars: number;
}

export interface TrackPlan {
  seed: number;
  style: Style;
  title: string;
  artist: string;
  bpm: number;
  tonic: number;
  mode: 'major' | 'minor';
  key: string;
  hasVocals: boolean;
  energy: EnergyLevel;
  moods: string[];
  subgenres: string[];
  instruments: string[];
  description: string;
  sections: Section[];
  barSeconds: number;
  durationSeconds: number;
  /** Start of the climax section: the designed dominant energy peak. */
  climaxSeconds: number;
}

export function planTrack(seed: number, options: { minSeconds?: number; maxSeconds?: number } = {}): TrackPlan {
  const random = seededRandom(seed);
  const style = STYLES[seed % STYLES.length];
  const bpm = random.int(style.bpm[0], style.bpm[1]);
  const tonic = random.int(0, 11);
  const hasVocals = random.next() < style.vocalsChance;
  const barSeconds = (4 * 60) / bpm;
  const target = random.int(options.minSeconds ?? 120, options.maxSeconds ?? 180);

  const sections: Section[] = [];
  let bar = 0;
  const add = (name: SectionName, bars: number) => {
    sections.push({ name, startBar: bar, bars });
    bar += bars;
  };
  add('intro', 4);
  const tailBars = 4 + 8 + 4; // build, climax, outro
  // Verse/chorus pairs until the track reaches its target length (at least two pairs).
  while ((bar + tailBars) * barSeconds < target || sections.length < 5) {
    add('verse', 8);
    add('chorus', 8);
  }
  add('build', 4);
  add('climax', 8);
  add('outro', 4);

  const parts = style.parts;
  const instruments = [...new Set(parts.map((p) => INSTRUMENT_OF_PART[p]))];
  if (hasVocals) instruments.push('Vocals');
  const climax = sections.find((s) => s.name === 'climax')!;
  return {
    seed,
    style,
    title: `${random.pick(TITLE_WORDS.adjectives)} ${random.pick(TITLE_WORDS.nouns)}`,
    artist: `${random.pick(ARTIST_WORDS.first)} ${random.pick(ARTIST_WORDS.second)}`,
    bpm,
    tonic,
    mode: style.mode,
    key: `${NOTE_NAMES[tonic]} ${style.mode}`,
    hasVocals,
    energy: style.energy,
    moods: random.some(style.moods, 2, 3),
    subgenres: random.some(style.subgenres, 1, 2),
    instruments,
    description: `${style.description}${hasVocals ? ', with vocals' : ', instrumental'}`,
    sections,
    barSeconds,
    durationSeconds: bar * barSeconds + 1.5, // a short ring-out after the last bar
    climaxSeconds: climax.startBar * barSeconds,
  };
}
