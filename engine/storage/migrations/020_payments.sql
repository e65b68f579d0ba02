-- Payments (issue 35, item 1; service-spec.md, Payments and PaymentGate). Card data never reaches
-- these tables: only the brand and last four digits (PCI DSS scope stays with the processor).

-- A hosted page session: a visit hold (mode 'hold') or a card setup (mode 'setup'). The id is the
-- unguessable path segment of the link; form_token is the per-session CSRF token of its form.
CREATE TABLE payment_sessions (
  id            text PRIMARY KEY,
  processor     text NOT NULL CHECK (processor IN ('embedded', 'stripe')),
  mode          text NOT NULL CHECK (mode IN ('hold', 'setup')),
  user_id       text NOT NULL,
  purpose_kind  text,
  purpose_ref   text,
  amount_cents  integer NOT NULL CHECK (amount_cents >= 0),
  currency      text NOT NULL,
  status        text NOT NULL CHECK (status IN ('open', 'completed', 'expired')),
  form_token    text NOT NULL,
  attempts      integer NOT NULL DEFAULT 0,
  external_id   text UNIQUE,
  hold_id       text,
  expires_at    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL,
  completed_at  timestamptz,
  CHECK ((mode = 'hold') = (purpose_kind IS NOT NULL AND purpose_ref IS NOT NULL))
);
CREATE INDEX payment_sessions_purpose ON payment_sessions (purpose_kind, purpose_ref);

-- An authorisation with manual capture. Status moves only authorized -> captured | released | lapsed.
CREATE TABLE payment_holds (
  id            text PRIMARY KEY,
  processor     text NOT NULL CHECK (processor IN ('embedded', 'stripe')),
  user_id       text NOT NULL,
  purpose_kind  text NOT NULL,
  purpose_ref   text NOT NULL,
  session_id    text REFERENCES payment_sessions(id),
  amount_cents  integer NOT NULL CHECK (amount_cents >= 0),
  currency      text NOT NULL,
  status        text NOT NULL CHECK (status IN ('authorized', 'captured', 'released', 'lapsed')),
  brand         text NOT NULL,
  last4         text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
  external_ref  text UNIQUE,
  authorized_at timestamptz NOT NULL,
  lapses_at     timestamptz NOT NULL,
  captured_at   timestamptz,
  released_at   timestamptz,
  lapsed_at     timestamptz
);
-- At most one live hold per purpose: paying a second link for the same visit never holds twice.
CREATE UNIQUE INDEX payment_holds_one_live ON payment_holds (purpose_kind, purpose_ref) WHERE status = 'authorized';
CREATE INDEX payment_holds_user ON payment_holds (user_id);

-- Saved cards (card-setup sessions). The newest active one is used for per-visit holds.
CREATE TABLE payment_methods (
  id            text PRIMARY KEY,
  processor     text NOT NULL CHECK (processor IN ('embedded', 'stripe')),
  user_id       text NOT NULL,
  brand         text NOT NULL,
  last4         text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
  exp_month     integer NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
  exp_year      integer NOT NULL,
  external_ref  text,
  -- Embedded processor only: Stripe's 4000 0000 0000 0341 saves but declines later charges.
  declines_charges boolean NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL,
  removed_at    timestamptz
);
CREATE INDEX payment_methods_user ON payment_methods (user_id, created_at DESC) WHERE removed_at IS NULL;

-- The processor-side customer of a user (Stripe Customer id), created on first need.
CREATE TABLE payment_customers (
  user_id       text NOT NULL,
  processor     text NOT NULL,
  external_id   text NOT NULL,
  PRIMARY KEY (user_id, processor)
);

-- Every money movement and every failed attempt, append-only.
CREATE TABLE payment_ledger (
  seq           bigserial PRIMARY KEY,
  kind          text NOT NULL CHECK (kind IN ('authorize', 'capture', 'release', 'lapse', 'failure', 'card_saved')),
  user_id       text NOT NULL,
  hold_id       text REFERENCES payment_holds(id),
  session_id    text REFERENCES payment_sessions(id),
  amount_cents  integer NOT NULL,
  currency      text NOT NULL,
  brand         text,
  last4         text,
  detail        text,
  created_at    timestamptz NOT NULL
);
-- A hold is captured, released or lapsed at most once, whatever races (the ledger is the proof).
CREATE UNIQUE INDEX payment_ledger_once ON payment_ledger (hold_id, kind) WHERE kind IN ('authorize', 'capture', 'release', 'lapse');
CREATE INDEX payment_ledger_user ON payment_ledger (user_id, seq);
