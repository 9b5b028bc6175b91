// Styles of the demo catalog: each names its parent genre, tags, instruments and the musical
// choices the renderer makes (tempo, mode, drums, energy).
import type { EnergyLevel } from '../vocabulary.ts';

export type Part = 'drums' | 'electronic-drums' | 'bass' | 'piano' | 'pluck' | 'pad' | 'strings' | 'brass' | 'percussion' | 'organ' | 'synth-lead';

export interface Style {
  genre: string;
  subgenres: string[];
  moods: string[];
  parts: Part[];
  bpm: [number, number];
  mode: 'major' | 'minor';
  energy: EnergyLevel;
  vocalsChance: number;
  description: string;
}

export const STYLES: Style[] = [
  { genre: 'Cinematic', subgenres: ['Trailer', 'Orchestral'], moods: ['Epic', 'Dramatic', 'Inspiring', 'Cinematic'], parts: ['drums', 'strings', 'brass', 'piano', 'bass', 'percussion'], bpm: [84, 110], mode: 'minor', energy: 'high', vocalsChance: 0, description: 'dark cinematic trailer build with thundering drums, soaring strings and brass' },
  { genre: 'Ambient', subgenres: ['Drone', 'Meditation'], moods: ['Calm', 'Floating', 'Dreamy', 'Peaceful', 'Ambient'], parts: ['pad', 'piano'], bpm: [60, 76], mode: 'major', energy: 'low', vocalsChance: 0, description: 'slow evolving pads and soft piano for relaxation, study and meditation' },
  { genre: 'House', subgenres: ['Deep House', 'Tech House'], moods: ['Energetic', 'Euphoric', 'Groovy'], parts: ['electronic-drums', 'bass', 'synth-lead', 'pad'], bpm: [120, 128], mode: 'minor', energy: 'high', vocalsChance: 0.4, description: 'four on the floor club track with driving bass and bright synths' },
  { genre: 'Hip Hop', subgenres: ['Lofi', 'Boom Bap'], moods: ['Chill', 'Laid Back', 'Nostalgic'], parts: ['drums', 'bass', 'piano', 'pad'], bpm: [78, 94], mode: 'minor', energy: 'medium', vocalsChance: 0.3, description: 'lofi hip hop beats to study and relax, dusty keys and mellow bass' },
  { genre: 'Acoustic', subgenres: ['Folk Pop', 'Campfire'], moods: ['Happy', 'Warm', 'Hopeful'], parts: ['pluck', 'percussion', 'bass'], bpm: [92, 118], mode: 'major', energy: 'medium', vocalsChance: 0.5, description: 'warm acoustic guitar strumming with light percussion, uplifting and sunny' },
  { genre: 'Rock', subgenres: ['Indie Rock', 'Alternative'], moods: ['Energetic', 'Confident', 'Heavy'], parts: ['drums', 'bass', 'pluck', 'organ'], bpm: [118, 150], mode: 'minor', energy: 'high', vocalsChance: 0.5, description: 'driving rock band with punchy drums, bass and distorted guitar riffs' },
  { genre: 'Jazz', subgenres: ['Swing', 'Lounge'], moods: ['Elegant', 'Romantic', 'Laid Back'], parts: ['piano', 'bass', 'drums'], bpm: [96, 132], mode: 'major', energy: 'medium', vocalsChance: 0.2, description: 'smooth jazz trio with piano, walking bass and brushed drums' },
  { genre: 'Pop', subgenres: ['Synth Pop', 'Dance Pop'], moods: ['Happy', 'Hopeful', 'Fun'], parts: ['drums', 'bass', 'synth-lead', 'piano'], bpm: [100, 124], mode: 'major', energy: 'high', vocalsChance: 0.8, description: 'catchy upbeat pop song with synths, piano and a big chorus' },
  { genre: 'Classical', subgenres: ['Chamber', 'Romantic Era'], moods: ['Elegant', 'Contemplative', 'Sentimental'], parts: ['strings', 'piano'], bpm: [62, 92], mode: 'minor', energy: 'low', vocalsChance: 0, description: 'gentle string ensemble and piano, reflective and elegant' },
  { genre: 'Electronic', subgenres: ['Drum and Bass', 'Synthwave'], moods: ['Energetic', 'Frantic', 'Hypnotic'], parts: ['electronic-drums', 'bass', 'synth-lead', 'pad'], bpm: [140, 174], mode: 'minor', energy: 'high', vocalsChance: 0.2, description: 'fast electronic track with pulsing synth bass for workout and action videos' },
  { genre: 'Downtempo', subgenres: ['Chillout', 'Trip Hop'], moods: ['Chill', 'Dreamy', 'Mysterious'], parts: ['drums', 'bass', 'pad', 'piano'], bpm: [82, 98], mode: 'minor', energy: 'low', vocalsChance: 0.3, description: 'slow moody downtempo groove with deep bass and hazy pads' },
  { genre: 'Funk', subgenres: ['Disco Funk', 'Soul Funk'], moods: ['Groovy', 'Fun', 'Confident'], parts: ['drums', 'bass', 'pluck', 'brass'], bpm: [100, 116], mode: 'major', energy: 'high', vocalsChance: 0.4, description: 'tight funky groove with slap bass, guitar chops and brass stabs' },
  { genre: 'Folk', subgenres: ['Indie Folk', 'Americana'], moods: ['Nostalgic', 'Sentimental', 'Intimate'], parts: ['pluck', 'strings', 'bass'], bpm: [70, 96], mode: 'major', energy: 'low', vocalsChance: 0.6, description: 'intimate folk ballad with fingerpicked guitar and soft strings' },
];

/** Spec instrument names for the parts (and vocals). */
export const INSTRUMENT_OF_PART: Record<Part, string> = {
  drums: 'Drums',
  'electronic-drums': 'Electronic Drums',
  bass: 'Bass',
  piano: 'Piano',
  pluck: 'Guitar',
  pad: 'Synth',
  strings: 'Strings',
  brass: 'Brass',
  percussion: 'Percussion',
  organ: 'Organ',
  'synth-lead': 'Synth',
};

export const TITLE_WORDS = {
  adjectives: ['Golden', 'Midnight', 'Electric', 'Silent', 'Endless', 'Crimson', 'Velvet', 'Distant', 'Wild', 'Neon', 'Hidden', 'Broken', 'Bright', 'Frozen', 'Rising', 'Lonely', 'Secret', 'Summer', 'Falling', 'Northern'],
  nouns: ['Horizon', 'River', 'Echoes', 'Skyline', 'Embers', 'Tides', 'Mirrors', 'Lanterns', 'Harbor', 'Satellites', 'Meadows', 'Shadows', 'Highway', 'Storm', 'Garden', 'Signals', 'Wolves', 'Dreams', 'Canyon', 'Stars'],
};

export const ARTIST_WORDS = {
  first: ['The', 'Lucid', 'Paper', 'Glass', 'Blue', 'Iron', 'Little', 'Hollow', 'Atlas', 'Copper', 'Quiet', 'Static', 'Nova', 'Amber', 'Pale'],
  second: ['Foxes', 'Orchestra', 'Collective', 'Machines', 'Kites', 'Lights', 'Ghosts', 'Parade', 'Sound', 'Owls', 'Waves', 'Theory', 'Division', 'Hearts', 'Empire'],
};
