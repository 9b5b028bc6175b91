// Example values shared by several operations' examples (one track, its id).
export const EXAMPLE_TRACK_ID = 'trk_3f9a1c0b7d2e4a68';

export const exampleTrack = {
  id: EXAMPLE_TRACK_ID,
  title: 'Night Drive',
  artist: 'Demo Orchestra',
  duration_seconds: 152.4,
  bpm: 96,
  key: 'A minor',
  genre: 'Electronic',
  subgenres: ['Synthwave'],
  moods: ['Dreamy', 'Nostalgic'],
  has_vocals: false,
  energy_level: 'medium',
  instruments: ['Synth', 'Drums', 'Bass'],
  peak_seconds: 98.75,
  preview_url: `https://api.example.com/api/external/v1/previews/${EXAMPLE_TRACK_ID}.mp3?exp=1795000000&sig=Zm9vYmFy`,
};
