-- Accounts, patients (the user and dependents) and onboarding (service-spec.md, Profile).
CREATE TABLE accounts (
  id            text PRIMARY KEY,
  email         text NOT NULL,
  email_lower   text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  display_name  text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE patients (
  id            text PRIMARY KEY,
  account_id    text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  relationship  text NOT NULL CHECK (relationship IN ('self', 'dependent')),
  given_name    text,
  family_name   text,
  birth_date    date,
  sex           text,
  phone         text,
  address_line1 text,
  address_line2 text,
  city          text,
  state         text,
  postal_code   text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX patients_one_self ON patients (account_id) WHERE relationship = 'self';
CREATE INDEX patients_account ON patients (account_id);

CREATE TABLE terms_acceptances (
  id              bigserial PRIMARY KEY,
  account_id      text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  terms_version   text NOT NULL,
  privacy_version text NOT NULL,
  accepted_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX terms_account ON terms_acceptances (account_id, accepted_at DESC);

-- oidc-provider adapter storage. Only hashes of codes and tokens are stored: `id_hash` is the
-- SHA-256 of the model id (the secret part of opaque tokens and codes). `grant_id`, `uid` and
-- `user_code` lookups are what oidc-provider's adapter interface needs.
CREATE TABLE oidc_payloads (
  model       text NOT NULL,
  id_hash     text NOT NULL,
  payload     jsonb NOT NULL,
  grant_id    text,
  uid         text,
  user_code   text,
  consumed_at timestamptz,
  expires_at  timestamptz,
  PRIMARY KEY (model, id_hash)
);
CREATE INDEX oidc_payloads_grant ON oidc_payloads (grant_id);
CREATE INDEX oidc_payloads_uid ON oidc_payloads (uid);
CREATE INDEX oidc_payloads_expires ON oidc_payloads (expires_at);
