-- The embedded pharmacy partner's own side (engine/prescriptions/adapters/partner.embedded.ts):
-- the orders it accepted and its event feed. Kept apart from prescription_orders on purpose: it
-- plays the other party, which we only reach through the PharmacyPartner port.
CREATE TABLE embedded_pharmacy_orders (
  id            text PRIMARY KEY,
  client_ref    text NOT NULL UNIQUE,
  state         text NOT NULL CHECK (state IN ('accepted', 'received', 'in_progress', 'ready_for_pickup', 'completed', 'cancelled', 'error')),
  scenario      text NOT NULL CHECK (scenario IN ('normal', 'reject', 'unclaimed')),
  next_step_at  timestamptz,
  created_at    timestamptz NOT NULL
);
CREATE INDEX embedded_pharmacy_orders_due ON embedded_pharmacy_orders (next_step_at) WHERE next_step_at IS NOT NULL;

-- The feed: seq is the cursor. Writers lock the table in SHARE ROW EXCLUSIVE mode, so seq order
-- is commit order and a reader paging by seq never skips an event committed later.
CREATE TABLE embedded_pharmacy_events (
  seq          bigserial PRIMARY KEY,
  event_id     text NOT NULL UNIQUE,
  order_id     text NOT NULL REFERENCES embedded_pharmacy_orders(id) ON DELETE CASCADE,
  client_ref   text NOT NULL,
  state        text NOT NULL,
  reason       text,
  occurred_at  timestamptz NOT NULL
);
