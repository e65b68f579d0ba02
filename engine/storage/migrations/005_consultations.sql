-- Conversations (service-spec.md, Conversation; Message; Conversation status). A conversation
-- never closes: a finished or cancelled request leaves it IDLE with its history. `request_seq`
-- numbers the live request (each triage run, payment gate and provider visit belongs to one).
CREATE TABLE conversations (
  id                  text PRIMARY KEY,
  account_id          text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  patient_id          text NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
  title               text NOT NULL,
  status              text NOT NULL CHECK (status IN ('IDLE', 'TRIAGING', 'PAYMENT_REQUIRED', 'MATCHING', 'WITH_PROVIDER', 'EMERGENCY')),
  -- Region for the next provider request (PATCH region) and the region of the live one.
  region              text NOT NULL,
  request_region      text,
  request_seq         integer NOT NULL DEFAULT 1,
  -- Latest triage outcome: {acuity, redFlags, summary, engine}; null before the first assessment.
  triage              jsonb,
  information_need    jsonb NOT NULL DEFAULT '[]'::jsonb,
  information_need_as_of text,
  payment_gate        jsonb,
  -- Newest message seq the owner has been shown (GET, wait, send responses): the read-first gate.
  last_seen_seq       bigint NOT NULL DEFAULT 0,
  last_activity_at    timestamptz NOT NULL,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);
CREATE INDEX conversations_account_activity ON conversations (account_id, last_activity_at DESC, id DESC);

CREATE TABLE conversation_messages (
  seq             bigserial UNIQUE,
  id              text PRIMARY KEY,
  conversation_id text NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  request_seq     integer NOT NULL,
  type            text NOT NULL CHECK (type IN ('text', 'photo', 'video', 'file')),
  -- 'user' (the patient, through the agent), 'assistant' (the triage assistant), 'provider', 'system'.
  sender          text NOT NULL CHECK (sender IN ('user', 'assistant', 'provider', 'system')),
  sender_id       text NOT NULL,
  content         text NOT NULL,
  file_name       text,
  -- Assistant turns: {asked: [need keys], engine, answersSeq}; never shown to callers as is.
  meta            jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at      timestamptz NOT NULL
);
CREATE INDEX conversation_messages_conv ON conversation_messages (conversation_id, seq);

-- Provider visits of a conversation (filled by the provider visit, care part 2): the detail's
-- providerVisit (the open one) and pastVisits (closed ones).
CREATE TABLE conversation_visits (
  id              text PRIMARY KEY,
  conversation_id text NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  request_seq     integer NOT NULL,
  provider_id     text NOT NULL,
  provider_name   text NOT NULL,
  started_at      timestamptz NOT NULL,
  closed_at       timestamptz,
  has_notes       boolean NOT NULL DEFAULT false
);
CREATE INDEX conversation_visits_conv ON conversation_visits (conversation_id, started_at);
CREATE UNIQUE INDEX conversation_visits_one_open ON conversation_visits (conversation_id) WHERE closed_at IS NULL;
