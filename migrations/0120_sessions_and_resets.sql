-- Issue 24: an access token names its session (the refresh-token family) and
-- is checked per request against its user and session; password resets and
-- the per-e-mail login lock.

-- Whether a session is alive is read per (cached) request by its family.
CREATE INDEX refresh_tokens_family_alive_idx ON refresh_tokens (family_id) WHERE revoked_at IS NULL;
CREATE INDEX refresh_tokens_user_idx ON refresh_tokens (user_id) WHERE revoked_at IS NULL;

-- A password reset link: single use, one hour; the token is kept only as its SHA-256.
CREATE TABLE password_resets (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_user_idx ON password_resets (user_id) WHERE used_at IS NULL;

-- Failed log-ins per e-mail (lower-cased), counted in a 15-minute window that
-- starts at the first failure: 10 failures lock the e-mail's log-in until the
-- window ends. Rows of users and of unknown addresses alike (no enumeration).
CREATE TABLE login_failures (
  email text PRIMARY KEY,
  failures integer NOT NULL,
  window_started_at timestamptz NOT NULL
);
CREATE INDEX login_failures_window_idx ON login_failures (window_started_at);
