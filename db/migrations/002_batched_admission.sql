-- Admission in batches: one round trip admits every request that arrived in the same tick, which
-- is what lets one PostgreSQL serve thousands of requests a second. Same rules as admit_request:
-- windows that have passed are reset, monthly credits reset lazily on the 1st (UTC), a request
-- is counted only when it is within both limits, 429s are not counted. Several requests of one
-- key in a batch are admitted in array order while the key has room.
-- Returns one row per admitted-or-refused request (ord = 1-based position in p_hashes); no row
-- for an unknown, revoked or expired key.
DROP FUNCTION admit_request(bytea);

CREATE FUNCTION admit_requests(p_hashes bytea[])
RETURNS TABLE (
  ord integer, key_id bigint, tier text, credits integer, monthly_credits integer, intent_extraction boolean,
  created_at timestamptz, last_used_at timestamptz,
  requests_per_minute integer, requests_per_day integer, minute_count integer, day_count integer,
  admitted boolean, retry_after_seconds integer
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  h record;
  k record;
  this_minute timestamptz := date_trunc('minute', now());
  today date := (now() AT TIME ZONE 'UTC')::date;
  this_month date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
  used_minute integer;
  used_day integer;
  balance integer;
  period date;
  wanted integer;
  granted integer;
BEGIN
  -- One indexed lookup per distinct key, locked in hash order, so concurrent batches (from any
  -- process) cannot deadlock. (A single "key_hash = ANY(...)" plan tends to a sequential scan.)
  FOR h IN
    SELECT u.hash, array_agg(u.ord::integer ORDER BY u.ord) AS positions
      FROM unnest(p_hashes) WITH ORDINALITY AS u (hash, ord)
     GROUP BY u.hash ORDER BY u.hash
  LOOP
    SELECT a.id, a.tier, a.credits, a.credits_period, a.created_at, a.minute_window, a.minute_count,
           a.day_window, a.day_count, t.monthly_credits AS t_monthly, t.intent_extraction AS t_intent,
           t.requests_per_minute AS t_per_minute, t.requests_per_day AS t_per_day
      INTO k
      FROM api_keys a JOIN tiers t ON t.name = a.tier
     WHERE a.key_hash = h.hash AND a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > now())
       FOR UPDATE OF a;
    CONTINUE WHEN NOT FOUND;

    used_minute := CASE WHEN k.minute_window = this_minute THEN k.minute_count ELSE 0 END;
    used_day := CASE WHEN k.day_window = today THEN k.day_count ELSE 0 END;
    balance := k.credits;
    period := k.credits_period;
    IF k.t_monthly > 0 AND period IS DISTINCT FROM this_month THEN
      balance := k.t_monthly;
      period := this_month;
    END IF;
    wanted := array_length(h.positions, 1);
    granted := greatest(0, least(wanted, k.t_per_minute - used_minute, coalesce(k.t_per_day - used_day, wanted)));

    UPDATE api_keys SET minute_window = this_minute, minute_count = used_minute + granted,
           day_window = today, day_count = used_day + granted,
           credits = balance, credits_period = period, last_used_at = now()
     WHERE id = k.id;

    FOR i IN 1 .. wanted LOOP
      ord := h.positions[i];
      key_id := k.id;
      tier := k.tier;
      credits := balance;
      monthly_credits := k.t_monthly;
      intent_extraction := k.t_intent;
      created_at := k.created_at;
      last_used_at := now();
      requests_per_minute := k.t_per_minute;
      requests_per_day := k.t_per_day;
      admitted := i <= granted;
      minute_count := used_minute + least(i, granted);
      day_count := used_day + least(i, granted);
      retry_after_seconds := CASE
        WHEN admitted THEN 0
        WHEN k.t_per_day IS NOT NULL AND used_day + granted >= k.t_per_day
          THEN ceil(extract(epoch FROM (today + 1)::timestamp AT TIME ZONE 'UTC' - now()))::integer
        ELSE greatest(1, ceil(extract(epoch FROM this_minute + interval '1 minute' - now())))::integer
      END;
      RETURN NEXT;
    END LOOP;
  END LOOP;
END $$;
