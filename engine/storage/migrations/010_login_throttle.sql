-- Issue 38, item 4: sign-in throttling with growing delays, persisted so that a restart or a
-- second instance does not reset it. `key_hash` is the SHA-256 of 'ip:<addr>',
-- 'acct:<email>' or 'acct-ip:<email>|<addr>' (no addresses or emails in clear).
CREATE TABLE login_throttle (
  key_hash        text PRIMARY KEY,
  failures        integer NOT NULL,
  last_failure_at timestamptz NOT NULL,
  blocked_until   timestamptz NOT NULL
);
CREATE INDEX login_throttle_last ON login_throttle (last_failure_at);

-- Item 8: when the account's email address was confirmed (NULL: not yet).
ALTER TABLE accounts ADD COLUMN email_verified_at timestamptz;
