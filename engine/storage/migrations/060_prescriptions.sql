-- Prescription orders (issue 36, item 1; service-spec.md, Prescription order). A clinician writes
-- an order during a visit; the pharmacy partner fulfils it and tells us its status. One row per
-- order (prescriptionOrderId), its items (prescriptions[]), every event the partner sent (pushed
-- or pulled, deduplicated by the partner's event id) and every status change we applied.
CREATE TABLE prescription_orders (
  id               text PRIMARY KEY,
  -- Insertion order: newest first is (created_at, seq) descending, stable when clocks tie.
  seq              bigserial NOT NULL UNIQUE,
  account_id       text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  patient_id       text NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
  conversation_id  text NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  visit_id         text NOT NULL REFERENCES conversation_visits(id) ON DELETE CASCADE,
  provider_id      text NOT NULL,
  -- engine/prescriptions/prescription-status.ts: UNKNOWN until the partner says something.
  status           text NOT NULL CHECK (status IN ('UNKNOWN', 'RECEIVED', 'IN_PROGRESS', 'READY_FOR_PICKUP', 'COMPLETED', 'CANCELLED', 'ERROR')),
  status_reason    text,
  partner          text NOT NULL,
  partner_order_id text,
  -- The partner's sequence number of the newest event applied: an older one arriving later is stale.
  partner_seq      bigint NOT NULL DEFAULT 0,
  target_pharmacy  jsonb,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE INDEX prescription_orders_account ON prescription_orders (account_id, created_at DESC, seq DESC);
CREATE UNIQUE INDEX prescription_orders_partner_ref ON prescription_orders (partner, partner_order_id);

CREATE TABLE prescription_items (
  id              text PRIMARY KEY,
  order_id        text NOT NULL REFERENCES prescription_orders(id) ON DELETE CASCADE,
  position        integer NOT NULL,
  drug_name       text NOT NULL,
  drug_din        text,
  drug_strength   text NOT NULL,
  drug_form       text NOT NULL,
  quantity        double precision NOT NULL,
  instructions    text NOT NULL,
  has_refill      boolean NOT NULL,
  refill_quantity double precision NOT NULL,
  UNIQUE (order_id, position)
);

-- Every partner event received, applied or not (a duplicate push, a stale or refused move).
CREATE TABLE prescription_partner_events (
  partner        text NOT NULL,
  event_id       text NOT NULL,
  order_id       text REFERENCES prescription_orders(id) ON DELETE CASCADE,
  partner_seq    bigint NOT NULL,
  partner_state  text NOT NULL,
  via            text NOT NULL CHECK (via IN ('push', 'pull')),
  outcome        text NOT NULL CHECK (outcome IN ('applied', 'stale', 'refused', 'unknown_order')),
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (partner, event_id)
);

-- Every status change of an order, oldest first (the history the spec's status is the head of).
CREATE TABLE prescription_status_changes (
  seq          bigserial PRIMARY KEY,
  order_id     text NOT NULL REFERENCES prescription_orders(id) ON DELETE CASCADE,
  from_status  text,
  to_status    text NOT NULL,
  event_id     text,
  at           timestamptz NOT NULL
);
CREATE INDEX prescription_status_changes_order ON prescription_status_changes (order_id, seq);

-- Where the reconciliation job resumes pulling each partner's event feed (the partner's cursor).
CREATE TABLE pharmacy_partner_cursors (
  partner    text PRIMARY KEY,
  cursor     text NOT NULL,
  updated_at timestamptz NOT NULL
);
