-- Admission leases: a server process may take a few admissions of a busy key ahead of its requests
-- and spend them from memory (server/auth/admission-leases.ts). The counters here always include
-- every admission handed out, used or not, so the limits still hold across processes; unused ones
-- are handed back while their window lasts.
--
-- One row per distinct key of the batch (ord = 1-based position in p_hashes):
--   p_wanted    requests waiting now: admitted in order while the key has room (granted)
--   p_extra     admissions asked ahead (leased), taken only from the first half of the minute's limit
--   p_returned  unused admissions of an earlier lease, taken in the minute p_returned_minute
-- No row for an unknown, revoked or expired key. Windows that have passed are reset, monthly
-- credits reset lazily on the 1st (UTC), refused requests are not counted.
DROP FUNCTION admit_requests(bytea[]);

CREATE FUNCTION admit_keys(p_hashes bytea[], p_wanted integer[], p_extra integer[], p_returned integer[], p_returned_minute timestamptz[])
RETURNS TABLE (
  ord integer, key_id bigint, tier text, credits integer, monthly_credits integer, intent_extraction boolean,
  created_at timestamptz, expires_at timestamptz,
  requests_per_minute integer, requests_per_day integer, minute_window timestamptz, minute_count integer, day_count integer,
  granted integer, leased integer, retry_after_seconds integer
)
LANGUAGE sql AS $$
  -- One set-based statement for the whole batch (a per-key loop costs ~8x more). The keys are
  -- locked in hash order (LockRows above the Sort), so concurrent batches cannot deadlock.
  WITH clock AS (
    SELECT date_trunc('minute', now()) AS this_minute, (now() AT TIME ZONE 'UTC')::date AS today,
           date_trunc('month', now() AT TIME ZONE 'UTC')::date AS this_month
  ),
  req AS (
    SELECT u.hash, u.ord::integer AS ord, p_wanted[u.ord] AS wanted, p_extra[u.ord] AS extra,
           p_returned[u.ord] AS returned, p_returned_minute[u.ord] AS returned_minute
      FROM unnest(p_hashes) WITH ORDINALITY AS u (hash, ord)
  ),
  locked AS (
    SELECT a.id, a.key_hash, a.tier AS key_tier, a.credits AS balance0, a.credits_period, a.created_at AS created,
           a.expires_at AS expires, a.minute_window AS window0, a.minute_count AS minute0, a.day_window, a.day_count AS day0
      FROM api_keys a
     WHERE a.key_hash IN (SELECT r.hash FROM req r) AND a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > now())
     ORDER BY a.key_hash
       FOR UPDATE
  ),
  used AS (  -- counters after window resets and hand-backs; the balance after a monthly reset
    SELECT l.*, r.ord AS position, r.wanted, r.extra, c.this_minute, c.today,
           t.monthly_credits AS t_monthly, t.intent_extraction AS t_intent, t.requests_per_minute AS t_per_minute, t.requests_per_day AS t_per_day,
           greatest(0, CASE WHEN l.window0 = c.this_minute THEN l.minute0 ELSE 0 END
                     - CASE WHEN r.returned > 0 AND r.returned_minute = c.this_minute THEN r.returned ELSE 0 END) AS minute_used,
           greatest(0, CASE WHEN l.day_window = c.today THEN l.day0 ELSE 0 END
                     - CASE WHEN r.returned > 0 AND (r.returned_minute AT TIME ZONE 'UTC')::date = c.today THEN r.returned ELSE 0 END) AS day_used,
           t.monthly_credits > 0 AND l.credits_period IS DISTINCT FROM c.this_month AS month_reset,
           c.this_month
      FROM locked l JOIN req r ON r.hash = l.key_hash JOIN tiers t ON t.name = l.key_tier CROSS JOIN clock c
  ),
  roomy AS (
    SELECT u.*, least(u.t_per_minute - u.minute_used, coalesce(u.t_per_day - u.day_used, u.t_per_minute - u.minute_used)) AS room
      FROM used u
  ),
  granting AS (
    SELECT r.*, greatest(0, least(r.wanted, r.room)) AS n_granted FROM roomy r
  ),
  decided AS (
    -- Leases come only from the first half of a window, a quarter of it at a time, so admissions
    -- leased by other processes cannot turn a key's own requests away before it has used half of
    -- its limit; past that point every request is counted here one by one.
    SELECT g.*, greatest(0, least(g.extra, (g.room - g.n_granted - (g.t_per_minute + 1) / 2) / 4)) AS n_leased,
           CASE WHEN g.month_reset THEN g.t_monthly ELSE g.balance0 END AS balance,
           CASE WHEN g.month_reset THEN g.this_month ELSE g.credits_period END AS period
      FROM granting g
  ),
  updated AS (
    UPDATE api_keys a
       SET minute_window = d.this_minute, minute_count = d.minute_used + d.n_granted + d.n_leased,
           day_window = d.today, day_count = d.day_used + d.n_granted + d.n_leased,
           credits = d.balance, credits_period = d.period,
           last_used_at = CASE WHEN d.wanted > 0 THEN now() ELSE a.last_used_at END
      FROM decided d
     WHERE a.id = d.id
    RETURNING a.id
  )
  SELECT d.position, d.id, d.key_tier, d.balance, d.t_monthly, d.t_intent, d.created, d.expires,
         d.t_per_minute, d.t_per_day, d.this_minute,
         d.minute_used + d.n_granted + d.n_leased, d.day_used + d.n_granted + d.n_leased,
         d.n_granted, d.n_leased,
         CASE
           WHEN d.t_per_day IS NOT NULL AND d.day_used + d.n_granted + d.n_leased >= d.t_per_day
             THEN ceil(extract(epoch FROM (d.today + 1)::timestamp AT TIME ZONE 'UTC' - now()))::integer
           ELSE greatest(1, ceil(extract(epoch FROM d.this_minute + interval '1 minute' - now())))::integer
         END
    FROM decided d
$$;

-- Servers drop their leases of a key the moment it is revoked, re-dated, re-tiered or deleted.
CREATE FUNCTION notify_api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_key_changed', encode(OLD.key_hash, 'hex'));
  RETURN NULL;
END $$;

CREATE TRIGGER api_key_changed
  AFTER UPDATE OF revoked_at, expires_at, tier ON api_keys
  FOR EACH ROW WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at OR OLD.tier IS DISTINCT FROM NEW.tier)
  EXECUTE FUNCTION notify_api_key_changed();

CREATE TRIGGER api_key_deleted AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_api_key_changed();
