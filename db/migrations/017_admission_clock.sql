-- admit_keys counts the rate-limit windows on now() plus p_clock_offset_ms (billing/window-clock.ts):
-- 0 for the service, so its windows stay on the database's clock; a test moves the clock to the
-- start of a minute instead of waiting for one. A key's expiry and last use stay on now().
-- The body is 006's with the clock's three window starts and Retry-After read from that time.
DROP FUNCTION admit_keys(bytea[], integer[], integer[], integer[], timestamptz[]);

CREATE FUNCTION admit_keys(p_hashes bytea[], p_wanted integer[], p_extra integer[], p_returned integer[], p_returned_minute timestamptz[],
                           p_clock_offset_ms double precision DEFAULT 0)
RETURNS TABLE (
  ord integer, key_id bigint, tier text, credits integer, monthly_credits integer, intent_extraction boolean,
  created_at timestamptz, expires_at timestamptz,
  requests_per_minute integer, requests_per_day integer, minute_window timestamptz, minute_count integer, day_count integer,
  granted integer, leased integer, retry_after_seconds integer
)
LANGUAGE sql
-- As migration 016: one generic plan that finds each key of the batch by its unique index.
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $$
  -- One set-based statement for the whole batch (a per-key loop costs ~8x more). The keys are
  -- locked in hash order (LockRows above the Sort), so concurrent batches cannot deadlock.
  WITH instant AS (
    SELECT now() + p_clock_offset_ms * interval '1 millisecond' AS moment
  ),
  clock AS (
    SELECT i.moment, date_trunc('minute', i.moment) AS this_minute, (i.moment AT TIME ZONE 'UTC')::date AS today,
           date_trunc('month', i.moment AT TIME ZONE 'UTC')::date AS this_month
      FROM instant i
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
    SELECT l.*, r.ord AS position, r.wanted, r.extra, c.moment, c.this_minute, c.today,
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
             THEN ceil(extract(epoch FROM (d.today + 1)::timestamp AT TIME ZONE 'UTC' - d.moment))::integer
           ELSE greatest(1, ceil(extract(epoch FROM d.this_minute + interval '1 minute' - d.moment)))::integer
         END
    FROM decided d
$$;
