-- Masters of any format (MP3, WAV, FLAC). The original is kept as delivered (audio_sha256, in the
-- store under its format's extension); besides it, where the original cannot serve itself:
-- - clip_master_sha256: the 44.1 kHz stereo CBR 128 kbps gapless MP3 every clip is spliced from and
--   the analysis is read from; NULL when the original is one (every track ingested before this
--   migration, and MP3s delivered at 44.1 kHz stereo CBR 128 kbps);
-- - download_sha256 / download_bytes: the full download, a CBR 320 kbps MP3 made from a WAV or FLAC
--   master; NULL when the original is an MP3 (downloaded byte for byte).
ALTER TABLE tracks
  ADD COLUMN audio_format       text NOT NULL DEFAULT 'mp3' CHECK (audio_format IN ('mp3', 'wav', 'flac')),
  ADD COLUMN clip_master_sha256 text,
  ADD COLUMN download_sha256    text,
  ADD COLUMN download_bytes     bigint,
  ADD CONSTRAINT tracks_download_whole CHECK ((download_sha256 IS NULL) = (download_bytes IS NULL)),
  ADD CONSTRAINT tracks_mp3_downloads_itself CHECK ((audio_format = 'mp3') = (download_sha256 IS NULL));
