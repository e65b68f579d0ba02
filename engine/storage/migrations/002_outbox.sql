-- The transactional outbox of events (service-spec.md, Events; engine/platform/outbox.ts).
-- Written in the transaction of the state change that causes it; never holds message content.
CREATE TABLE outbox_events (
  seq             bigserial PRIMARY KEY,
  event_id        text NOT NULL UNIQUE,
  event           text NOT NULL,
  user_id         text NOT NULL,
  consultation_id text,
  status          text,
  message         text NOT NULL,
  data            jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_events_user_seq ON outbox_events (user_id, seq);
CREATE INDEX outbox_events_consultation_seq ON outbox_events (consultation_id, seq) WHERE consultation_id IS NOT NULL;
