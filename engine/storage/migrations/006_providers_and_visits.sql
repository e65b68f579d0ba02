-- Provider accounts (issue 35, item 3): an account with a clinical role, its NPI (10 digits, the
-- CMS National Provider Identifier) and the ISO 3166-2 regions it is licensed in. Keyed by the
-- account id: a provider signs in through the same OAuth server as a patient.
CREATE TABLE providers (
  account_id   text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  role         text NOT NULL CHECK (role IN ('clinician', 'care_team')),
  npi          text NOT NULL UNIQUE CHECK (npi ~ '^[0-9]{10}$'),
  regions      text[] NOT NULL,
  display_name text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);

-- The visit hold of each paid request: which hold (payment_holds.id) pays for request_seq of a
-- conversation. Capture and release jobs carry the hold id, never the conversation id, so a job
-- that runs late can never touch the hold of a later request.
CREATE TABLE visit_holds (
  conversation_id text NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  request_seq     integer NOT NULL,
  hold_id         text NOT NULL UNIQUE,
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (conversation_id, request_seq)
);

-- Matching (issue 35, item 3): the clinicians a MATCHING request was offered to, rank 1 = least
-- loaded at matching time. A provider's queue is its offers whose request is still MATCHING.
CREATE TABLE visit_offers (
  conversation_id text NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  request_seq     integer NOT NULL,
  provider_id     text NOT NULL REFERENCES providers(account_id) ON DELETE CASCADE,
  rank            integer NOT NULL,
  offered_at      timestamptz NOT NULL,
  PRIMARY KEY (conversation_id, request_seq, provider_id)
);
CREATE INDEX visit_offers_provider ON visit_offers (provider_id, offered_at);

-- Visit notes (service-spec.md, Provider visit notes): one note per visit, rewritten until the
-- visit ends.
CREATE TABLE visit_notes (
  visit_id        text PRIMARY KEY REFERENCES conversation_visits(id) ON DELETE CASCADE,
  conversation_id text NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  provider_id     text NOT NULL,
  chief_complaint text NOT NULL,
  assessment      text NOT NULL,
  plan            text NOT NULL,
  summary         text NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE INDEX visit_notes_conv ON visit_notes (conversation_id);
