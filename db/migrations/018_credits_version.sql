-- Every change of a key's balance gets the next credits_version of that key. Statements that move
-- credits return the balance with its version, so a process that hears of several balances of a
-- key out of order (concurrent requests settle in any order) keeps the newest one, never an older
-- one in its place: the balance it shows is always one the ledger held, and after a burst the last.
-- The version is taken while the row is locked, so versions follow the order the changes commit in.
ALTER TABLE api_keys ADD COLUMN credits_version bigint NOT NULL DEFAULT 0;

-- A statement that sets credits_version itself (charge_requests: one step per item charged) is
-- left alone; any other change of credits (reservations, refunds, give-backs, resets, an operator's
-- UPDATE) steps the version by one.
CREATE FUNCTION step_credits_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.credits_version := OLD.credits_version + 1;
  RETURN NEW;
END $$;

CREATE TRIGGER credits_version_step
  BEFORE UPDATE OF credits ON api_keys
  FOR EACH ROW WHEN (OLD.credits IS DISTINCT FROM NEW.credits AND OLD.credits_version = NEW.credits_version)
  EXECUTE FUNCTION step_credits_version();

DROP FUNCTION charge_requests(bigint[], integer[], text[], double precision[], double precision[], double precision[],
                              text[], text[], timestamptz[], real[], text[]);

-- 013's charge_requests, returning with each charged item the version of the balance right after
-- it: items of one key in one batch are charged in batch order, the key's version stepped once each.
CREATE FUNCTION charge_requests(p_keys bigint[], p_amounts integer[], p_tracks text[], p_durations double precision[],
                                p_hits double precision[], p_starts double precision[], p_request_ids text[],
                                p_endpoints text[], p_requested_at timestamptz[], p_response_ms real[], p_idempotency_keys text[])
RETURNS TABLE (ord integer, credits integer, usage_id bigint, credits_version bigint)
LANGUAGE sql
-- As migration 016: one generic plan that finds each key of the batch by its unique index.
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $$
  WITH req AS (
    SELECT u.key_id, u.ord::integer AS ord, p_amounts[u.ord] AS amount, p_tracks[u.ord] AS track_id,
           p_durations[u.ord] AS duration, p_hits[u.ord] AS hit, p_starts[u.ord] AS clip_start, p_request_ids[u.ord] AS request_id,
           p_endpoints[u.ord] AS endpoint, p_requested_at[u.ord] AS requested_at, p_response_ms[u.ord] AS response_ms,
           p_idempotency_keys[u.ord] AS idempotency_key
      FROM unnest(p_keys) WITH ORDINALITY AS u (key_id, ord)
  ),
  locked AS (
    SELECT a.id, a.credits AS before, a.credits_version AS version_before
      FROM api_keys a WHERE a.id IN (SELECT r.key_id FROM req r) ORDER BY a.key_hash FOR UPDATE
  ),
  running AS (
    SELECT r.*, l.before, l.version_before,
           sum(r.amount) OVER (PARTITION BY r.key_id ORDER BY r.ord) AS spent,
           count(*) OVER (PARTITION BY r.key_id ORDER BY r.ord) AS step
      FROM req r JOIN locked l ON l.id = r.key_id
  ),
  charged AS (SELECT * FROM running WHERE spent <= before),
  updated AS (
    UPDATE api_keys a SET credits = a.credits - t.total, credits_version = a.credits_version + t.steps
      FROM (SELECT c.key_id, sum(c.amount) AS total, count(*) AS steps FROM charged c GROUP BY c.key_id) t
     WHERE a.id = t.key_id
    RETURNING a.id
  ),
  licensed AS (
    INSERT INTO licenses (key_id, track_id, duration_seconds, hit_point_seconds, clip_start_seconds, request_id)
    SELECT c.key_id, c.track_id, c.duration, c.hit, c.clip_start, c.request_id FROM charged c WHERE c.track_id IS NOT NULL
  ),
  completed AS (
    UPDATE idempotency_keys i SET status = 200, process_id = NULL
      FROM charged c
     WHERE c.idempotency_key IS NOT NULL AND i.key_id = c.key_id AND i.idempotency_key = c.idempotency_key AND i.request_id = c.request_id
  ),
  recorded AS (
    INSERT INTO usage_records (key_id, requested_at, endpoint, status_code, credits_consumed, response_time_ms, request_id)
    SELECT c.key_id, c.requested_at, c.endpoint, 200, c.amount, c.response_ms, c.request_id FROM charged c
    RETURNING id, request_id
  )
  SELECT c.ord, (c.before - c.spent)::integer, u.id, c.version_before + c.step
    FROM charged c JOIN recorded u ON u.request_id = c.request_id
$$;
