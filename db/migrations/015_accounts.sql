-- Accounts of the dashboard (issue 18): an account signs in with an email and a password and owns
-- API keys. Keys made before accounts existed go to the default account, which has no password
-- until the first `npm start` gives it one (billing/demo-account.ts) or `npm run accounts` does.
CREATE TABLE accounts (
  id                    bigserial PRIMARY KEY,
  email                 text NOT NULL CHECK (email = btrim(email) AND length(email) BETWEEN 3 AND 254),
  password_hash         text,                                -- "scrypt$N$r$p$salt$hash"; NULL: cannot sign in
  password_must_change  boolean NOT NULL DEFAULT false,      -- set by a one-time password
  tier                  text NOT NULL REFERENCES tiers (name) DEFAULT 'free',  -- of keys made in the dashboard
  is_default            boolean NOT NULL DEFAULT false,      -- owns keys made by `npm run keys` without --account
  created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));
CREATE UNIQUE INDEX accounts_one_default ON accounts (is_default) WHERE is_default;

INSERT INTO accounts (email, tier, is_default) VALUES ('owner@localhost', 'pro', true);

ALTER TABLE api_keys ADD COLUMN account_id bigint REFERENCES accounts (id);
UPDATE api_keys SET account_id = (SELECT id FROM accounts WHERE is_default);
ALTER TABLE api_keys ALTER COLUMN account_id SET NOT NULL;
CREATE INDEX api_keys_account ON api_keys (account_id, created_at, id);

-- Dashboard sessions: the cookie carries a random token; only its SHA-256 is kept here. The CSRF
-- token is per session, sent back by the page in a header on every state-changing call.
CREATE TABLE dashboard_sessions (
  token_hash   bytea PRIMARY KEY,
  account_id   bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  csrf_token   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_account ON dashboard_sessions (account_id);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);

-- Failed sign-ins per subject ("account:<email>" whether or not the account exists, and
-- "address:<ip>"), so limits hold across server processes. A success clears the account's row.
CREATE TABLE login_failures (
  subject        text PRIMARY KEY,
  failures       integer NOT NULL,
  last_failed_at timestamptz NOT NULL
);
