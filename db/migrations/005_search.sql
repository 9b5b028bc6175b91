-- Search: a weighted full-text document per track (title and artist A, genre and tags B,
-- description C) kept by a trigger, a GIN index over it, and trigram similarity (pg_trgm) on
-- title and artist for typo tolerance.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE tracks ADD COLUMN search_document tsvector;
ALTER TABLE tracks ADD COLUMN search_names text;

CREATE FUNCTION tracks_search_document() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_document :=
    setweight(to_tsvector('english', coalesce(NEW.title, '') || ' ' || coalesce(NEW.artist, '')), 'A') ||
    setweight(to_tsvector('english', coalesce(NEW.genre, '') || ' ' || array_to_string(NEW.subgenres, ' ') || ' ' ||
                                     array_to_string(NEW.moods, ' ') || ' ' || array_to_string(NEW.instruments, ' ')), 'B') ||
    setweight(to_tsvector('english', coalesce(NEW.description, '')), 'C');
  NEW.search_names := lower(coalesce(NEW.title, '') || ' ' || coalesce(NEW.artist, ''));
  RETURN NEW;
END $$;

CREATE TRIGGER tracks_search_document BEFORE INSERT OR UPDATE ON tracks
  FOR EACH ROW EXECUTE FUNCTION tracks_search_document();
UPDATE tracks SET title = title; -- fill existing rows

CREATE INDEX tracks_search ON tracks USING gin (search_document);
CREATE INDEX tracks_search_names ON tracks USING gin (search_names gin_trgm_ops);
