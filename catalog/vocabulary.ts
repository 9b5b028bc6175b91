// The vocabularies of spec 2.6: what filters accept and what track metadata uses.

export const PARENT_GENRES = [
  'Acoustic', 'Ambient', 'Beats', 'Blues', 'Brass & Marching Band', "Children's Music", 'Cinematic', 'Classical', 'Comedy',
  'Country', 'Dance', 'Disco', 'Downtempo', 'Easy Listening', 'Electronic', 'Electronica', 'Experimental', 'Fanfares', 'Folk',
  'Funk', 'Hip Hop', 'House', 'Jazz', 'Latin', 'Metal', 'Pop', 'Punk', 'R&B', 'Reggae', 'Religious Music', 'Rock',
  'Singer-Songwriter', 'Soul', 'Special Occasions', 'World',
] as const;

export const MOODS = [
  'Ambient', 'Angry', 'Calm', 'Chill', 'Cinematic', 'Confident', 'Contemplative', 'Dark', 'Dramatic', 'Dreamy', 'Eccentric',
  'Elegant', 'Energetic', 'Epic', 'Euphoric', 'Floating', 'Frantic', 'Fun', 'Glamorous', 'Groovy', 'Happy', 'Heavy', 'Hopeful',
  'Hypnotic', 'Inspiring', 'Intimate', 'Laid Back', 'Melancholic', 'Mysterious', 'Nostalgia', 'Nostalgic', 'Peaceful', 'Quirky',
  'Romantic', 'Sad', 'Scary', 'Sensual', 'Sentimental', 'Sneaking', 'Suspense', 'Warm', 'Weird',
] as const;

export const INSTRUMENTS = [
  'Piano', 'Guitar', 'Drums', 'Bass', 'Synth', 'Strings', 'Brass', 'Woodwinds', 'Vocals', 'Percussion', 'Organ', 'Harp', 'Electronic Drums',
] as const;

export const ENERGY_LEVELS = ['low', 'medium', 'high'] as const;
export type EnergyLevel = (typeof ENERGY_LEVELS)[number];
