-- Each track's timbre statistics (engine/analysis/timbre.ts: its average spectral shape, 12
-- numbers), written at ingestion from the analysis, for "similar tracks". Kept beside the
-- analysis blob because the search index reads it for every track at load, and the blobs are
-- tens of kilobytes each. Tracks ingested before this column have none (NULL).
ALTER TABLE tracks ADD COLUMN timbre real[];
