-- The Ed25519 key that signs license certificates (billing/license-signing-key.ts): made once by
-- the first server process to start and shared by every process on this database. One row per
-- purpose: processes starting at once each try to insert theirs (ON CONFLICT DO NOTHING) and all
-- then read the one row that won. Not used when LICENSE_SIGNING_KEY is set.
CREATE TABLE signing_keys (
  purpose      text PRIMARY KEY,
  key_id       text NOT NULL,            -- RFC 7638 thumbprint of the public key
  private_key  bytea NOT NULL,           -- PKCS#8 DER
  created_at   timestamptz NOT NULL DEFAULT now()
);
