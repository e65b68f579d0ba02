-- Issue 38, item 8: email verification and password reset links. Only the SHA-256 of a link's
-- token is stored; a token is single use (used_at) and expires (expires_at).
CREATE TABLE account_tokens (
  token_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  purpose    text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX account_tokens_account ON account_tokens (account_id, purpose);
