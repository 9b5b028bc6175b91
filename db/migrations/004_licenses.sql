-- One license per successful download (spec 1, rule 2: every download includes a perpetual sync
-- license). Written by the same statement that commits the download's credit.
CREATE TABLE licenses (
  id                  bigserial PRIMARY KEY,
  key_id              bigint NOT NULL REFERENCES api_keys (id),
  track_id            text NOT NULL REFERENCES tracks (id),
  duration_seconds    double precision,          -- NULL: the full track
  hit_point_seconds   double precision,
  clip_start_seconds  double precision,
  request_id          text NOT NULL,
  granted_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX licenses_key ON licenses (key_id, granted_at DESC);
CREATE INDEX licenses_request ON licenses (request_id);
