-- One ledger (design.md "Billing"): a paid request's charge, its usage record and its license are
-- written by one statement; Idempotency-Key claims and their stored replies; server processes keep
-- a heartbeat so the reservations and claims of a dead one are settled within seconds.

CREATE TABLE server_processes (
  id            bigserial PRIMARY KEY,
  host          text NOT NULL,
  pid           integer NOT NULL,
  started_at    timestamptz NOT NULL DEFAULT now(),
  heartbeat_at  timestamptz NOT NULL DEFAULT now()
);

-- NULL for reservations taken before this migration: those keep the old age rule.
ALTER TABLE credit_reservations ADD COLUMN process_id bigint;

-- A usage record is the token of a charge: giving a charge back deletes it (by id) in the same
-- statement that returns the credits, so a charge is given back at most once.
CREATE TABLE idempotency_keys (
  key_id           bigint NOT NULL,
  idempotency_key  text NOT NULL,
  fingerprint      bytea NOT NULL,        -- SHA-256 of the endpoint and the request body
  request_id       text NOT NULL,         -- the request that claimed it
  process_id       bigint,                -- the process working on it; NULL once completed
  created_at       timestamptz NOT NULL DEFAULT now(),
  status           smallint,              -- NULL while in flight
  content_type     text,
  body             text,                  -- NULL for replies that are re-made (clips, full tracks)
  PRIMARY KEY (key_id, idempotency_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

DROP FUNCTION charge_credits(bigint[], integer[], text[], double precision[], double precision[], double precision[], text[]);

-- Charges a batch of replies that exist (or are being worked out): per item its credits, its
-- usage record (status 200), with a track its license, and with an Idempotency-Key the completion
-- of that key (status 200; the reply is re-made on a replay, or its body stored by a later
-- statement), all in this one statement. Items of one key are charged in batch order while the
-- balance covers their running total; keys are locked in key_hash order, as admit_keys locks them,
-- so no two batches can deadlock.
-- Returns one row per charged item (ord = 1-based position): the key's balance right after it and
-- the id of its usage record.
CREATE FUNCTION charge_requests(p_keys bigint[], p_amounts integer[], p_tracks text[], p_durations double precision[],
                                p_hits double precision[], p_starts double precision[], p_request_ids text[],
                                p_endpoints text[], p_requested_at timestamptz[], p_response_ms real[], p_idempotency_keys text[])
RETURNS TABLE (ord integer, credits integer, usage_id bigint)
LANGUAGE sql AS $$
  WITH req AS (
    SELECT u.key_id, u.ord::integer AS ord, p_amounts[u.ord] AS amount, p_tracks[u.ord] AS track_id,
           p_durations[u.ord] AS duration, p_hits[u.ord] AS hit, p_starts[u.ord] AS clip_start, p_request_ids[u.ord] AS request_id,
           p_endpoints[u.ord] AS endpoint, p_requested_at[u.ord] AS requested_at, p_response_ms[u.ord] AS response_ms,
           p_idempotency_keys[u.ord] AS idempotency_key
      FROM unnest(p_keys) WITH ORDINALITY AS u (key_id, ord)
  ),
  locked AS (
    SELECT a.id, a.credits AS before FROM api_keys a WHERE a.id IN (SELECT r.key_id FROM req r) ORDER BY a.key_hash FOR UPDATE
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
  SELECT c.ord, (c.before - c.spent)::integer, u.id FROM charged c JOIN recorded u ON u.request_id = c.request_id
$$;

-- The sweep of dead processes looks only at claims still in flight.
CREATE INDEX idempotency_keys_in_flight ON idempotency_keys (process_id) WHERE status IS NULL;
