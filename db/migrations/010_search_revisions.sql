-- Search revisions: every write that changes what search sees (a new track, changed metadata, a
-- removal) stamps the row with the next revision. The server's in-memory search index catches up
-- by reading the rows above the last revision it holds. Writers take a transaction-scoped lock
-- before drawing a revision, so revisions become visible in the order they were drawn: once a
-- reader sees revision R, no transaction can still commit a revision below R, and "> R" misses
-- nothing.
CREATE SEQUENCE tracks_search_revision;
ALTER TABLE tracks ADD COLUMN search_revision bigint NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION tracks_search_document() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE'
     AND (NEW.title, NEW.artist, NEW.genre, NEW.subgenres, NEW.moods, NEW.instruments, NEW.description,
          NEW.has_vocals, NEW.bpm, NEW.energy_level, NEW.removed_at)
         IS NOT DISTINCT FROM
         (OLD.title, OLD.artist, OLD.genre, OLD.subgenres, OLD.moods, OLD.instruments, OLD.description,
          OLD.has_vocals, OLD.bpm, OLD.energy_level, OLD.removed_at)
     AND OLD.search_revision > 0 THEN
    RETURN NEW;
  END IF;
  NEW.search_document :=
    setweight(to_tsvector('english', coalesce(NEW.title, '') || ' ' || coalesce(NEW.artist, '')), 'A') ||
    setweight(to_tsvector('english', coalesce(NEW.genre, '') || ' ' || array_to_string(NEW.subgenres, ' ') || ' ' ||
                                     array_to_string(NEW.moods, ' ') || ' ' || array_to_string(NEW.instruments, ' ')), 'B') ||
    setweight(to_tsvector('english', coalesce(NEW.description, '')), 'C');
  NEW.search_names := lower(coalesce(NEW.title, '') || ' ' || coalesce(NEW.artist, ''));
  PERFORM pg_advisory_xact_lock(hashtext('tracks_search_revision'));
  NEW.search_revision := nextval('tracks_search_revision');
  RETURN NEW;
END $$;

UPDATE tracks SET search_revision = 0; -- the trigger stamps every existing row
CREATE INDEX tracks_by_search_revision ON tracks (search_revision);
