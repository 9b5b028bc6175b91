-- Charges in batches (server/credits.ts, createCharger): one statement and one commit for every
-- charge of a batch. Items of one key are charged in batch order while the balance covers their
-- running total; each charged item with a track gets its license in the same statement.
-- Returns one row per charged item (ord = 1-based position): the key's balance right after it.
CREATE FUNCTION charge_credits(p_keys bigint[], p_amounts integer[], p_tracks text[], p_durations double precision[],
                               p_hits double precision[], p_starts double precision[], p_request_ids text[])
RETURNS TABLE (ord integer, credits integer)
LANGUAGE sql AS $$
  WITH req AS (
    SELECT u.key_id, u.ord::integer AS ord, p_amounts[u.ord] AS amount, p_tracks[u.ord] AS track_id,
           p_durations[u.ord] AS duration, p_hits[u.ord] AS hit, p_starts[u.ord] AS clip_start, p_request_ids[u.ord] AS request_id
      FROM unnest(p_keys) WITH ORDINALITY AS u (key_id, ord)
  ),
  locked AS (  -- locked in id order, so concurrent batches cannot deadlock
    SELECT a.id, a.credits AS before FROM api_keys a WHERE a.id IN (SELECT r.key_id FROM req r) ORDER BY a.id FOR UPDATE
  ),
  running AS (
    SELECT r.*, l.before, sum(r.amount) OVER (PARTITION BY r.key_id ORDER BY r.ord) AS spent
      FROM req r JOIN locked l ON l.id = r.key_id
  ),
  charged AS (SELECT * FROM running WHERE spent <= before),
  updated AS (
    UPDATE api_keys a SET credits = a.credits - t.total
      FROM (SELECT c.key_id, sum(c.amount) AS total FROM charged c GROUP BY c.key_id) t
     WHERE a.id = t.key_id
    RETURNING a.id
  ),
  licensed AS (
    INSERT INTO licenses (key_id, track_id, duration_seconds, hit_point_seconds, clip_start_seconds, request_id)
    SELECT c.key_id, c.track_id, c.duration, c.hit, c.clip_start, c.request_id FROM charged c WHERE c.track_id IS NOT NULL
  )
  SELECT c.ord, (c.before - c.spent)::integer FROM charged c
$$;
