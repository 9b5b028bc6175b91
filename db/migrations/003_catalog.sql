-- The catalog: one row per track. Audio and previews live in the content-addressed store
-- (DATA_DIR/catalog), named by their SHA-256; the analysis is persisted here.
CREATE TABLE tracks (
  id                text PRIMARY KEY,                 -- "trk_" + 16 hex of the audio's SHA-256: stable, URL-safe
  audio_sha256      text NOT NULL UNIQUE,
  audio_bytes       bigint NOT NULL,
  preview_sha256    text NOT NULL,
  title             text NOT NULL,
  artist            text NOT NULL,
  duration_seconds  double precision NOT NULL,
  bpm               real,
  key               text,
  genre             text,
  subgenres         text[] NOT NULL DEFAULT '{}',
  moods             text[] NOT NULL DEFAULT '{}',
  instruments       text[] NOT NULL DEFAULT '{}',
  has_vocals        boolean,
  energy_level      text CHECK (energy_level IN ('low', 'medium', 'high')),
  description       text NOT NULL DEFAULT '',
  peak_seconds      real NOT NULL,
  analysis          bytea NOT NULL,
  source_file       text,
  ingested_at       timestamptz NOT NULL DEFAULT now(),
  removed_at        timestamptz
);
