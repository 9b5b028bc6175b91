-- Ingest as jobs (catalog/ingest-jobs.ts): one per master, keyed by the SHA-256 of the original
-- (already in the storage when its job is queued), so a folder ingested twice, or from two
-- machines at once, makes each master once. A worker claims a job by locking its row (FOR UPDATE
-- SKIP LOCKED) in the transaction that writes its track and marks it done: a worker that dies
-- mid-job releases the job with its connection, and another worker takes it at once.
CREATE TABLE ingest_jobs (
  sha256       text PRIMARY KEY,
  file         text NOT NULL,
  format       text NOT NULL,
  metadata     jsonb NOT NULL,
  state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'rejected')),
  reason       text,
  done_by      text,
  queued_at    timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);
CREATE INDEX ingest_jobs_pending ON ingest_jobs (queued_at) WHERE state = 'pending';
