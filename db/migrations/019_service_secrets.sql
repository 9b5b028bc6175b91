-- Secrets every server process on this database shares (catalog/preview-secret.ts): made once by
-- the first process to start, as signing_keys are, so that a preview link one node signed is
-- honoured by every other. Not used when PREVIEW_SECRET is set.
CREATE TABLE service_secrets (
  purpose     text PRIMARY KEY,
  secret      text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
