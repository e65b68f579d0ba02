-- Issue 38, item 9: webhook parameters passed to init_signup (service-spec.md, Webhooks), kept
-- per account and session key. The webhooks area (register_webhook, deliveries) will own this
-- table; until then it is written by init_signup only. `webhook_token` is kept as given: it is
-- sent back to the receiver on every delivery, so it cannot be stored as a one-way hash.
CREATE TABLE webhook_configs (
  account_id               text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  session_key              text NOT NULL,
  webhook_url              text NOT NULL,
  webhook_token            text,
  delivery_context         jsonb,
  conversation_session_key text,
  linked_at                timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, session_key)
);
