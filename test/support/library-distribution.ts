// The tag distribution of a library-shaped catalog, written from general knowledge of public
// music-tagging datasets (MTG-Jamendo's genre, instrument and mood/theme tags: a long tail of
// specific genres, instruments named specifically, themes that are uses: film, advertising,
// christmas, children, trailer, corporate...), mapped onto our sidecar: `genre` a parent genre of
// spec 2.6, `subgenres` the dataset's genre tags, `moods` its mood/theme tags, `instruments` its
// instrument tags by their specific names ("Acoustic Guitar", "Ukulele", "Violin"). Styles give
// the catalog's shape (each a share of tracks and the tags its tracks draw from, "Tag weight, ...");
// themes are overlays a share of tracks of any fitting style carry. Moods are only the
// dataset's 56 mood/theme tags: a library does not tag Suspense or Sneaking. library-catalog.ts draws
// tracks from it deterministically.

export interface Style {
  genre: string;
  /** Relative share of the catalog. */
  share: number;
  subgenres: string;
  moods: string;
  instruments: string;
  /** Energy low/medium/high weights. */
  energy: [number, number, number];
  /** Probability that a track has vocals. */
  vocals: number;
  bpm: [number, number];
}

export interface Theme {
  /** Share of the tracks of its styles that carry it. */
  share: number;
  /** Styles (by parent genre) it can overlay; empty: any. */
  genres: string[];
  moods: string;
  instruments: string;
  /** Description words. */
  words: string[];
}

export const STYLES: Style[] = [
  { genre: 'Electronic', share: 9, subgenres: 'Electronic 6, Techno 2, House 2, Trance 2, Drum and Bass 1, Dubstep 1, EDM 2, Minimal 1, Breakbeat 1, Industrial 1', moods: 'Energetic 5, Party 3, Dark 2, Deep 2, Fast 2, Sport 1, Cool 2, Groovy 1, Powerful 1', instruments: 'Synthesizer 6, Drum Machine 4, Beat 3, Bass 2, Computer 2, Sampler 1, Pad 1', energy: [1, 3, 6], vocals: 0.15, bpm: [118, 150] },
  { genre: 'Electronica', share: 5, subgenres: 'Electronica 4, IDM 2, Electropop 2, Synthpop 2, Darkwave 1, New Wave 1', moods: 'Dream 3, Melodic 3, Deep 2, Space 2, Retro 2, Cool 2, Dark 1', instruments: 'Synthesizer 6, Pad 3, Drum Machine 3, Computer 2, Electric Piano 1, Sampler 1', energy: [2, 5, 3], vocals: 0.3, bpm: [95, 128] },
  { genre: 'Ambient', share: 8, subgenres: 'Ambient 6, Dark Ambient 2, New Age 3, Atmospheric 2, Drone 1', moods: 'Relaxing 5, Calm 4, Meditative 4, Soundscape 3, Space 3, Dream 3, Deep 2, Nature 2, Dark 1, Background 2, Soft 2', instruments: 'Synthesizer 5, Pad 5, Piano 2, Strings 1, Bell 1, Computer 2, Flute 1', energy: [7, 3, 0], vocals: 0.05, bpm: [60, 95] },
  { genre: 'Cinematic', share: 9, subgenres: 'Soundtrack 6, Orchestral 4, Symphonic 2, Epic 1, Trailer Music 1, Underscore 1', moods: 'Film 6, Epic 4, Dramatic 3, Emotional 3, Adventure 2, Trailer 2, Movie 2, Dark 2, Powerful 2, Inspiring 2, Action 1, Hopeful 1, Documentary 1', instruments: 'Orchestra 5, Strings 5, Piano 3, Violin 2, Cello 2, Brass 2, Horn 2, Percussion 2, Synthesizer 2, Choir 1', energy: [3, 4, 3], vocals: 0.05, bpm: [70, 130] },
  { genre: 'Classical', share: 4, subgenres: 'Classical 6, Baroque 1, Romantic Era 1, Chamber 2, Contemporary Classical 1, Medieval 1', moods: 'Calm 3, Romantic 2, Melancholic 2, Emotional 2, Relaxing 2, Soft 2, Melodic 2, Sad 1', instruments: 'Piano 6, Violin 3, Cello 2, Viola 1, Strings 3, Classical Guitar 1, Flute 1, Clarinet 1, Oboe 1, Harp 1, Pipe Organ 1', energy: [5, 4, 1], vocals: 0.05, bpm: [60, 120] },
  { genre: 'Pop', share: 9, subgenres: 'Pop 6, Indie Pop 2, Synthpop 1, Electropop 2, Pop Rock 2, Dance Pop 1, Pop Folk 1, Eurodance 1', moods: 'Happy 5, Love 3, Upbeat 3, Positive 3, Summer 2, Romantic 2, Party 1, Melodic 2, Uplifting 2, Fun 1, Sad 1', instruments: 'Voice 6, Synthesizer 3, Drums 3, Bass 2, Electric Guitar 2, Acoustic Guitar 2, Piano 2, Keyboard 2, Beat 1', energy: [1, 5, 4], vocals: 0.75, bpm: [90, 128] },
  { genre: 'Rock', share: 8, subgenres: 'Rock 6, Alternative 3, Indie 3, Hard Rock 2, Classic Rock 1, Post Rock 2, Grunge 1, Progressive 1, Psychedelic 1, Rock and Roll 1, Blues Rock 1', moods: 'Energetic 4, Powerful 3, Heavy 1, Melancholic 1, Cool 2, Retro 1, Sport 1, Action 1, Upbeat 1, Emotional 1', instruments: 'Electric Guitar 6, Drums 6, Bass 5, Voice 4, Guitar 2, Keyboard 1, Organ 1', energy: [1, 4, 5], vocals: 0.6, bpm: [100, 160] },
  { genre: 'Metal', share: 2, subgenres: 'Metal 4, Heavy Metal 3, Thrash Metal 1, Death Metal 1, Gothic 1', moods: 'Heavy 5, Dark 3, Powerful 3, Fast 2, Energetic 2, Action 1', instruments: 'Electric Guitar 6, Drums 6, Bass 4, Voice 3', energy: [0, 1, 9], vocals: 0.6, bpm: [130, 200] },
  { genre: 'Punk', share: 1, subgenres: 'Punk Rock 4, Hardcore 1, Pop Punk 2', moods: 'Energetic 4, Fast 3, Fun 1, Heavy 1', instruments: 'Electric Guitar 6, Drums 6, Bass 5, Voice 4', energy: [0, 2, 8], vocals: 0.7, bpm: [150, 200] },
  { genre: 'Hip Hop', share: 5, subgenres: 'Hip Hop 6, Rap 3, Trip Hop 2, Lo-fi 2, Boom Bap 1, Trap 1', moods: 'Cool 3, Groovy 3, Deep 2, Dark 1, Relaxing 1, Background 1, Party 1', instruments: 'Beat 6, Drum Machine 4, Sampler 3, Bass 3, Voice 3, Rhodes 1, Piano 1, Synthesizer 2', energy: [2, 6, 2], vocals: 0.4, bpm: [75, 100] },
  { genre: 'Downtempo', share: 5, subgenres: 'Chillout 6, Downtempo 4, Lounge 3, Trip Hop 2, Nu Jazz 1', moods: 'Relaxing 5, Cool 3, Deep 2, Dream 2, Summer 2, Background 3, Soft 2, Sexy 1, Travel 1', instruments: 'Synthesizer 4, Beat 3, Pad 2, Electric Piano 2, Rhodes 2, Bass 2, Acoustic Guitar 1, Saxophone 1', energy: [5, 5, 0], vocals: 0.2, bpm: [80, 110] },
  { genre: 'Dance', share: 3, subgenres: 'Dance 5, Club 3, Deep House 2, Eurodance 2, Disco House 1', moods: 'Party 5, Energetic 4, Upbeat 3, Happy 2, Summer 2, Groovy 2, Sexy 1', instruments: 'Synthesizer 5, Drum Machine 5, Bass 3, Voice 2, Beat 2', energy: [0, 3, 7], vocals: 0.35, bpm: [118, 130] },
  { genre: 'Jazz', share: 4, subgenres: 'Jazz 6, Swing 2, Smooth Jazz 2, Acid Jazz 1, Jazz Fusion 2, Bebop 1, Bossa Nova 1', moods: 'Relaxing 3, Cool 3, Groovy 3, Romantic 2, Sexy 1, Retro 2, Melancholic 1, Happy 1', instruments: 'Saxophone 5, Piano 4, Double Bass 4, Drums 4, Trumpet 3, Rhodes 1, Electric Guitar 1, Clarinet 1, Trombone 1, Voice 1', energy: [4, 5, 1], vocals: 0.15, bpm: [80, 180] },
  { genre: 'Blues', share: 1, subgenres: 'Blues 5, Blues Rock 2, Delta Blues 1', moods: 'Melancholic 2, Cool 2, Retro 2, Sad 1, Groovy 2', instruments: 'Electric Guitar 4, Guitar 2, Harmonica 3, Voice 3, Bass 2, Drums 2, Piano 1, Organ 1', energy: [3, 6, 1], vocals: 0.5, bpm: [70, 120] },
  { genre: 'Funk', share: 2, subgenres: 'Funk 5, Groove 2, Jazz Funk 1', moods: 'Groovy 6, Party 2, Cool 3, Happy 2, Retro 2', instruments: 'Bass 6, Electric Guitar 4, Drums 4, Brass 2, Trumpet 1, Saxophone 1, Organ 1, Keyboard 2, Voice 1', energy: [0, 5, 5], vocals: 0.25, bpm: [95, 120] },
  { genre: 'Soul', share: 1, subgenres: 'Soul 5, Neo Soul 2, Motown 1, Gospel 1', moods: 'Love 3, Romantic 2, Groovy 2, Sexy 2, Retro 2, Emotional 1', instruments: 'Voice 6, Piano 2, Organ 2, Bass 3, Drums 3, Brass 1, Rhodes 1', energy: [3, 5, 2], vocals: 0.85, bpm: [70, 115] },
  { genre: 'R&B', share: 1, subgenres: 'RnB 5, Contemporary R&B 2', moods: 'Sexy 4, Love 3, Romantic 3, Cool 2, Deep 1', instruments: 'Voice 6, Beat 3, Synthesizer 3, Bass 2, Electric Piano 1', energy: [4, 5, 1], vocals: 0.85, bpm: [65, 100] },
  { genre: 'Folk', share: 4, subgenres: 'Folk 6, Pop Folk 2, Celtic 2, Indie Folk 2, Americana 1', moods: 'Melodic 3, Happy 2, Calm 2, Nature 2, Travel 2, Romantic 1, Melancholic 2, Retro 1, Hopeful 1', instruments: 'Acoustic Guitar 6, Voice 4, Violin 2, Accordion 1, Harmonica 1, Banjo 1, Mandolin 1, Flute 1, Ukulele 1', energy: [4, 5, 1], vocals: 0.55, bpm: [80, 130] },
  { genre: 'Acoustic', share: 3, subgenres: 'Acoustic 6, Singer-Songwriter 2, Instrumental Pop 2', moods: 'Happy 2, Calm 3, Relaxing 3, Soft 3, Positive 2, Love 1, Hopeful 2, Background 2, Summer 1', instruments: 'Acoustic Guitar 6, Piano 2, Ukulele 2, Voice 2, Classical Guitar 1, Percussion 1', energy: [4, 5, 1], vocals: 0.35, bpm: [80, 125] },
  { genre: 'Singer-Songwriter', share: 2, subgenres: 'Singer-Songwriter 6, Chanson 1, Ballad 2', moods: 'Sad 2, Love 3, Emotional 3, Melancholic 2, Romantic 2, Soft 2, Ballad 2', instruments: 'Voice 6, Acoustic Guitar 4, Piano 3, Strings 1', energy: [6, 4, 0], vocals: 0.95, bpm: [65, 110] },
  { genre: 'Country', share: 1, subgenres: 'Country 5, Bluegrass 1, Western 1, Americana 1', moods: 'Happy 2, Travel 2, Retro 2, Melancholic 1, Love 1, Positive 1', instruments: 'Acoustic Guitar 5, Voice 4, Banjo 2, Violin 2, Harmonica 1, Electric Guitar 1, Bass 1, Drums 1', energy: [2, 6, 2], vocals: 0.6, bpm: [85, 130] },
  { genre: 'Latin', share: 2, subgenres: 'Latin 5, Bossa Nova 2, Salsa 1, Tango 1, Reggaeton 1, Flamenco 1', moods: 'Summer 3, Party 2, Happy 2, Sexy 2, Romantic 2, Travel 2, Groovy 2', instruments: 'Acoustic Guitar 3, Percussion 4, Bongo 2, Trumpet 2, Piano 1, Accordion 1, Classical Guitar 2, Voice 2, Bass 2', energy: [2, 5, 3], vocals: 0.35, bpm: [85, 180] },
  { genre: 'Reggae', share: 1, subgenres: 'Reggae 5, Dub 2, Ska 1', moods: 'Summer 3, Relaxing 2, Happy 2, Groovy 3, Positive 1', instruments: 'Bass 5, Electric Guitar 3, Drums 3, Organ 2, Voice 2, Percussion 1', energy: [3, 6, 1], vocals: 0.4, bpm: [68, 95] },
  { genre: 'World', share: 3, subgenres: 'World 5, Ethno 3, World Fusion 2, Celtic 1, Middle Eastern 1, Indian 1, African 1, Asian 1', moods: 'Travel 4, Meditative 2, Nature 2, Adventure 1, Calm 1, Dream 1, Deep 1', instruments: 'Percussion 5, Flute 2, Sitar 1, Bongo 2, Strings 2, Koto 1, Didgeridoo 1, Oud 1, Voice 2, Accordion 1', energy: [3, 5, 2], vocals: 0.25, bpm: [70, 130] },
  { genre: 'Easy Listening', share: 2, subgenres: 'Easy Listening 5, Lounge 3, Instrumental Pop 2, Muzak 1', moods: 'Background 5, Relaxing 3, Positive 3, Corporate 2, Happy 2, Soft 2, Calm 1, Commercial 1', instruments: 'Piano 4, Acoustic Guitar 3, Strings 2, Electric Piano 2, Bass 1, Drums 1, Vibraphone 1', energy: [4, 5, 1], vocals: 0.1, bpm: [80, 120] },
  { genre: 'Experimental', share: 2, subgenres: 'Experimental 5, Noise 1, Avant-Garde 1, Glitch 1, Sound Art 1, Improvisation 1', moods: 'Dark 3, Soundscape 3, Deep 2, Space 2, Heavy 1, Dream 1', instruments: 'Computer 4, Synthesizer 4, Sampler 2, Pad 2, Percussion 1, Piano 1', energy: [4, 4, 2], vocals: 0.1, bpm: [60, 140] },
  { genre: "Children's Music", share: 1, subgenres: "Children's Music 5, Nursery Rhyme 2, Kids Pop 1", moods: 'Children 6, Funny 3, Happy 4, Fun 3, Positive 2, Upbeat 1', instruments: 'Ukulele 3, Xylophone 3, Glockenspiel 2, Acoustic Guitar 2, Piano 2, Voice 3, Clarinet 1, Percussion 1', energy: [2, 6, 2], vocals: 0.45, bpm: [90, 140] },
  { genre: 'Religious Music', share: 1, subgenres: 'Gospel 3, Hymn 2, Choral 2, Worship 1', moods: 'Hopeful 3, Inspiring 2, Calm 2, Emotional 2, Uplifting 2', instruments: 'Choir 4, Pipe Organ 3, Organ 2, Piano 3, Voice 4', energy: [4, 4, 2], vocals: 0.8, bpm: [60, 120] },
  { genre: 'Brass & Marching Band', share: 0.5, subgenres: 'Marching Band 4, Brass Band 2, Military 1', moods: 'Powerful 2, Happy 2, Sport 2, Retro 1, Positive 1', instruments: 'Brass 5, Trumpet 3, Trombone 2, Snare Drum 3, Tuba 2, Percussion 2', energy: [0, 4, 6], vocals: 0, bpm: [100, 130] },
  { genre: 'Comedy', share: 0.5, subgenres: 'Comedy 4, Cartoon 2, Vaudeville 1', moods: 'Funny 6, Fun 4, Children 1, Happy 2, Retro 1', instruments: 'Tuba 2, Clarinet 2, Pizzicato Strings 3, Xylophone 2, Kazoo 1, Piano 2, Bassoon 1', energy: [1, 6, 3], vocals: 0.1, bpm: [90, 150] },
];

export const THEMES: Theme[] = [
  { share: 0.03, genres: ['Pop', 'Classical', 'Jazz', 'Folk', 'Acoustic', 'Easy Listening', 'Cinematic', "Children's Music", 'Religious Music', 'Soul'], moods: 'Christmas 6, Holiday 3, Happy 2', instruments: 'Bell 4, Sleigh Bells 2, Glockenspiel 1', words: ['festive', 'winter', 'snow', 'sleigh bells', 'holiday season'] },
  { share: 0.06, genres: ['Pop', 'Acoustic', 'Easy Listening', 'Electronica', 'Folk', 'Electronic'], moods: 'Advertising 5, Commercial 3, Corporate 3, Positive 3, Uplifting 3, Motivational 2', instruments: 'Piano 1, Acoustic Guitar 1, Claps 2', words: ['commercial', 'brand', 'product', 'presentation', 'business'] },
  { share: 0.04, genres: ['Pop', 'Acoustic', "Children's Music", 'Folk', 'Comedy', 'Easy Listening'], moods: 'Children 5, Fun 3, Funny 2, Happy 2', instruments: 'Ukulele 3, Xylophone 2, Glockenspiel 2, Whistle 1', words: ['kids', 'cartoon', 'playful', 'toys', 'school'] },
  { share: 0.08, genres: ['Cinematic', 'Electronic', 'Rock', 'Metal', 'Experimental'], moods: 'Trailer 4, Action 4, Epic 3, Powerful 2, Dramatic 2', instruments: 'Percussion 3, Taiko 1, Brass 2, Synthesizer 1', words: ['trailer', 'impact', 'hits', 'blockbuster', 'battle'] },
  { share: 0.08, genres: ['Cinematic', 'Ambient', 'Electronica', 'Experimental', 'Classical'], moods: 'Dark 4, Film 3, Dramatic 2, Deep 1', instruments: 'Cello 2, Strings 2, Pad 2, Piano 1, Drone 1', words: ['suspense', 'tension', 'thriller', 'crime', 'investigation', 'heist', 'spy'] },
  { share: 0.05, genres: ['Electronic', 'Electronica', 'Rock', 'Cinematic', 'Dance'], moods: 'Game 5, Action 2, Retro 2, Fun 1', instruments: 'Chiptune 3, Synthesizer 3, Drum Machine 1', words: ['video game', 'arcade', 'level', 'gaming', '8-bit'] },
  { share: 0.06, genres: ['Ambient', 'Classical', 'Cinematic', 'World', 'Acoustic', 'Folk'], moods: 'Nature 4, Documentary 4, Calm 2', instruments: 'Flute 2, Piano 2, Strings 2, Harp 1', words: ['nature', 'wildlife', 'landscape', 'ocean', 'forest', 'documentary'] },
  { share: 0.07, genres: ['Pop', 'Electronic', 'Dance', 'Rock', 'Hip Hop', 'Funk'], moods: 'Sport 4, Energetic 3, Motivational 3, Powerful 2', instruments: 'Drums 2, Beat 2, Electric Guitar 1', words: ['workout', 'fitness', 'training', 'running', 'gym'] },
  { share: 0.05, genres: ['Pop', 'Latin', 'Reggae', 'Dance', 'Acoustic', 'World', 'Downtempo'], moods: 'Summer 4, Travel 3, Happy 2', instruments: 'Ukulele 2, Steel Drums 1, Acoustic Guitar 1', words: ['beach', 'sunny', 'vacation', 'tropical', 'road trip'] },
  { share: 0.04, genres: ['Classical', 'Acoustic', 'Pop', 'Cinematic', 'Singer-Songwriter', 'Religious Music'], moods: 'Love 4, Romantic 4, Emotional 2, Soft 1', instruments: 'Piano 2, Strings 2, Violin 1, Harp 1', words: ['wedding', 'ceremony', 'bride', 'first dance'] },
  { share: 0.04, genres: ['Ambient', 'Downtempo', 'World', 'Classical', 'Acoustic'], moods: 'Meditative 4, Relaxing 3, Calm 2', instruments: 'Singing Bowl 2, Flute 2, Pad 2, Harp 1', words: ['meditation', 'yoga', 'spa', 'mindfulness', 'breathing'] },
  { share: 0.04, genres: ['Cinematic', 'Ambient', 'Experimental', 'Electronica', 'Classical'], moods: 'Dark 5, Film 2, Movie 1', instruments: 'Strings 2, Music Box 1, Pad 2, Piano 1', words: ['horror', 'creepy', 'haunted', 'eerie'] },
  { share: 0.04, genres: ['Hip Hop', 'Downtempo', 'Jazz', 'Electronica'], moods: 'Relaxing 3, Background 3, Cool 1', instruments: 'Rhodes 2, Vinyl 1, Beat 2', words: ['study', 'focus', 'vinyl crackle', 'late night'] },
];

/** Words descriptions use for anything: library copy's use words, common to most tracks. */
export const USE_PHRASES = [
  'for video, ads and film',
  'for youtube videos and online content',
  'perfect for any scene',
  'great for commercials, trailers and games',
  'background music for video',
  'for dance videos and social media',
  'for podcasts and vlogs',
  'ideal for ads and presentations',
];

/** Title words: the title is two of them, so titles say little (as in any library). */
export const TITLE_WORDS = [
  'Morning', 'Echoes', 'Light', 'Shadows', 'River', 'City', 'Dreams', 'Horizon', 'Waves', 'Journey', 'Fire', 'Glass', 'Silver',
  'Heart', 'Northern', 'Still', 'Velvet', 'Lanterns', 'Motion', 'Signal', 'Paper', 'Golden', 'Hollow', 'Bloom', 'Static', 'Orbit',
  'Harbor', 'Quiet', 'Storm', 'Neon', 'Dust', 'Parade', 'Mirror', 'Roads', 'Sky', 'Tides', 'Embers', 'Winter', 'Summer', 'Blue',
];

/** Artist name parts: a few hundred artists, a dozen tracks each. */
export const ARTIST_FIRST = ['The', 'Lost', 'Blue', 'Night', 'Electric', 'Silent', 'Young', 'Golden', 'Red', 'Paper', 'Velvet', 'Broken', 'Crystal', 'Wild', 'Lunar', 'Northern'];
export const ARTIST_LAST = ['Owls', 'Collective', 'Signals', 'Orchestra', 'Tapes', 'Machines', 'Riders', 'Foxes', 'Quartet', 'Sound', 'Gardens', 'Harbor', 'Project', 'Ensemble', 'Kids', 'Lights', 'Wolves', 'Radio', 'Pilots', 'Trio'];
