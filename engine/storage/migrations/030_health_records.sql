-- Health records (issue 36, item 2; service-spec.md, Health records): connections of a patient to
-- a payer's Patient Access API (SMART App Launch, FHIR R4), pending link requests, and the imported
-- FHIR resources. Secrets: the OAuth `state` is stored only as its SHA-256; the PKCE verifier and
-- the payer's tokens must be sent back, so they are stored encrypted (AES-256-GCM), never in clear.

CREATE TABLE records_link_requests (
  state_hash   text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  patient_id   text NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
  payer_key    text NOT NULL,
  verifier_enc text NOT NULL,
  expires_at   timestamptz NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX records_link_requests_expires ON records_link_requests (expires_at);

-- One connection per patient. `generation` names the resource set shown; a sync writes the next
-- generation beside it and swaps in one transaction at the end, so a failed sync keeps the last
-- good data. `sync_started_at` is set while a sync runs (a stale one counts as not running).
CREATE TABLE records_connections (
  patient_id      text PRIMARY KEY REFERENCES patients(id) ON DELETE CASCADE,
  account_id      text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  payer_key       text NOT NULL,
  payer_label     text NOT NULL,
  fhir_patient_id text NOT NULL,
  tokens_enc      text NOT NULL,
  scope           text,
  generation      integer NOT NULL DEFAULT 0,
  imported_at     timestamptz,
  last_synced_at  timestamptz,
  sync_status     text,
  sync_note       text,
  sync_started_at timestamptz,
  linked_at       timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX records_connections_account ON records_connections (account_id);

-- Imported FHIR resources as the payer sent them (validated), keyed by type and id per generation.
-- `sort_at` is the resource's clinical or service date (ISO text), for newest-first views.
CREATE TABLE records_resources (
  patient_id    text NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
  generation    integer NOT NULL,
  resource_type text NOT NULL,
  resource_id   text NOT NULL,
  sort_at       text,
  resource      jsonb NOT NULL,
  PRIMARY KEY (patient_id, generation, resource_type, resource_id)
);
