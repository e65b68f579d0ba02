-- Issue 39, item 2: webhook deliveries (docs/webhooks.md; service-spec.md, Webhooks and Events).
--
-- Each configuration gets a Standard Webhooks signing secret (`whsec_…`), shown to the user once
-- when it is created or rotated. Like webhook_token it is kept as issued: the service signs every
-- delivery with it, so it cannot be stored as a one-way hash.
ALTER TABLE webhook_configs ADD COLUMN signing_secret text;
-- Existing rows get one now (32 random bytes from two v4 UUIDs: pgcrypto is not assumed).
UPDATE webhook_configs SET signing_secret = 'whsec_' || encode(decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'), 'base64')
  WHERE signing_secret IS NULL;

-- One row per (event, configuration): the delivery log and the delivery queue at once.
-- Rows are written by the trigger below in the transaction that appends the event to the outbox,
-- so a delivery exists exactly when its event commits. That is why no reader ever walks
-- outbox_events by a seq high-water mark: seq is allocated at insert and a lower seq may commit
-- after a higher one, which such a reader would skip.
--   pending  -> sending (claimed: claimed_at, attempts + 1) -> delivered | failed
-- A row still `sending` after the claim lease (the process died during the 5 s attempt) is
-- claimed again: every event gets an attempt even across a crash; a crash in mid-attempt can
-- repeat that one attempt, with the same webhook-id so that the receiver can drop the repeat.
CREATE TABLE webhook_deliveries (
  id            bigserial PRIMARY KEY,
  delivery_id   text NOT NULL UNIQUE,
  event_seq     bigint NOT NULL REFERENCES outbox_events(seq) ON DELETE CASCADE,
  account_id    text NOT NULL,
  session_key   text NOT NULL,
  state         text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'delivered', 'failed')),
  attempts      integer NOT NULL DEFAULT 0,
  claimed_at    timestamptz,
  event_at      timestamptz NOT NULL,
  finished_at   timestamptz,
  webhook_url   text,
  status_code   integer,
  error         text,
  latency_ms    integer,
  UNIQUE (event_seq, account_id, session_key),
  FOREIGN KEY (account_id, session_key) REFERENCES webhook_configs(account_id, session_key) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (id) WHERE state IN ('pending', 'sending');
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (account_id, id DESC);

-- The fan-out: every event goes to every configuration its user has when it is written
-- (a configuration registered later does not receive earlier events). The notification wakes
-- the deliverers on commit (engine/webhooks/webhook-deliverer.ts); polling is the backstop.
CREATE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (delivery_id, event_seq, account_id, session_key, event_at)
  SELECT 'msg_' || substr(md5(NEW.event_id || ':' || c.session_key), 1, 24), NEW.seq, c.account_id, c.session_key, NEW.created_at
  FROM webhook_configs c WHERE c.account_id = NEW.user_id;
  IF FOUND THEN
    PERFORM pg_notify('cb_webhook_deliveries', '');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER outbox_events_webhook_fan_out AFTER INSERT ON outbox_events
  FOR EACH ROW EXECUTE FUNCTION webhook_fan_out();
