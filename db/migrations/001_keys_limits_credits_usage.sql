-- Tiers: the defaults of the design, changeable here in one table.
CREATE TABLE tiers (
  name                text PRIMARY KEY,
  initial_credits     integer NOT NULL CHECK (initial_credits >= 0),  -- granted when a key is created
  monthly_credits     integer NOT NULL CHECK (monthly_credits >= 0),  -- 0: one-time credits, no monthly reset
  requests_per_minute integer NOT NULL CHECK (requests_per_minute > 0),
  requests_per_day    integer CHECK (requests_per_day > 0),           -- NULL: no daily limit
  intent_extraction   boolean NOT NULL
);
INSERT INTO tiers VALUES
  ('free',    50,    0,     5,   50,   false),
  ('starter', 300,   300,   10,  1000, true),
  ('pro',     50000, 50000, 300, NULL, true);

-- Rate-limit windows live on the key row: one locked row update admits a request, so the limits
-- hold across server processes. fillfactor leaves room for HOT updates of the counters.
CREATE TABLE api_keys (
  id              bigserial PRIMARY KEY,
  key_hash        bytea NOT NULL UNIQUE,          -- SHA-256 of the key; the key itself is never stored
  prefix          text NOT NULL,                  -- first characters, for display
  name            text NOT NULL,
  tier            text NOT NULL REFERENCES tiers (name),
  credits         integer NOT NULL CHECK (credits >= 0),
  credits_period  date,                           -- month (1st, UTC) the balance belongs to; NULL for one-time credits
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz,
  revoked_at      timestamptz,
  last_used_at    timestamptz,
  minute_window   timestamptz NOT NULL DEFAULT 'epoch',
  minute_count    integer NOT NULL DEFAULT 0,
  day_window      date NOT NULL DEFAULT 'epoch',
  day_count       integer NOT NULL DEFAULT 0
) WITH (fillfactor = 70);
CREATE UNIQUE INDEX api_keys_prefix ON api_keys (prefix);

-- Credits taken but not yet final. Deleting the row is the single point where a reservation is
-- settled, so a refund can happen at most once. Rows left by a crashed process are refunded at start.
CREATE TABLE credit_reservations (
  id          bigserial PRIMARY KEY,
  key_id      bigint NOT NULL REFERENCES api_keys (id),
  amount      integer NOT NULL CHECK (amount > 0),
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE usage_records (
  id                bigserial PRIMARY KEY,
  key_id            bigint NOT NULL REFERENCES api_keys (id),
  requested_at      timestamptz NOT NULL,
  endpoint          text NOT NULL,
  status_code       smallint NOT NULL,
  credits_consumed  integer NOT NULL,
  response_time_ms  real NOT NULL,
  request_id        text NOT NULL
);
CREATE INDEX usage_records_key_time ON usage_records (key_id, requested_at DESC, id DESC);

-- Admits one request for a key: resets windows that have passed, resets monthly credits lazily on
-- the 1st (UTC), counts the request when it is within both limits. Returns no row for an unknown,
-- revoked or expired key. Requests refused with 429 are not counted.
CREATE FUNCTION admit_request(p_hash bytea)
RETURNS TABLE (
  key_id bigint, tier text, credits integer, monthly_credits integer, intent_extraction boolean,
  created_at timestamptz, last_used_at timestamptz,
  requests_per_minute integer, requests_per_day integer, minute_count integer, day_count integer,
  admitted boolean, retry_after_seconds integer
)
LANGUAGE plpgsql AS $$
DECLARE
  k api_keys%ROWTYPE;
  t tiers%ROWTYPE;
  this_minute timestamptz := date_trunc('minute', now());
  today date := (now() AT TIME ZONE 'UTC')::date;
  this_month date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
  ok boolean;
BEGIN
  SELECT * INTO k FROM api_keys a
   WHERE a.key_hash = p_hash AND a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > now())
   FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  SELECT * INTO t FROM tiers WHERE name = k.tier;

  IF k.minute_window <> this_minute THEN k.minute_window := this_minute; k.minute_count := 0; END IF;
  IF k.day_window <> today THEN k.day_window := today; k.day_count := 0; END IF;
  IF t.monthly_credits > 0 AND k.credits_period IS DISTINCT FROM this_month THEN
    k.credits := t.monthly_credits; k.credits_period := this_month;
  END IF;
  ok := k.minute_count < t.requests_per_minute AND (t.requests_per_day IS NULL OR k.day_count < t.requests_per_day);
  IF ok THEN k.minute_count := k.minute_count + 1; k.day_count := k.day_count + 1; END IF;

  UPDATE api_keys a SET minute_window = k.minute_window, minute_count = k.minute_count,
         day_window = k.day_window, day_count = k.day_count,
         credits = k.credits, credits_period = k.credits_period, last_used_at = now()
   WHERE a.id = k.id;

  RETURN QUERY SELECT k.id, k.tier, k.credits, t.monthly_credits, t.intent_extraction,
    k.created_at, now(), t.requests_per_minute, t.requests_per_day, k.minute_count, k.day_count, ok,
    CASE
      WHEN ok THEN 0
      WHEN t.requests_per_day IS NOT NULL AND k.day_count >= t.requests_per_day
        THEN ceil(extract(epoch FROM (today + 1)::timestamp AT TIME ZONE 'UTC' - now()))::integer
      ELSE greatest(1, ceil(extract(epoch FROM this_minute + interval '1 minute' - now())))::integer
    END;
END $$;
