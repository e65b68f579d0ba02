-- Care jobs (issue 39, item 1; service-spec.md, Care job, Care job status, Care jobs): real-world
-- actions the user approves on their own device and the care team carries out. Status moves only
-- along engine/carejobs/care-job-status.ts; `sheet` is what the approval page shows, frozen at
-- creation. `approval_token` is the approvalUrl's unguessable path segment; it is not a credential
-- (approving needs the user's own sign-in on the page), so it is kept as is to answer GET.
CREATE TABLE care_jobs (
  id                  text PRIMARY KEY,
  account_id          text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  patient_id          text,
  job_type            text NOT NULL CHECK (job_type IN ('move_referral', 'book_appointment', 'cancel_or_reschedule')),
  tier                text NOT NULL CHECK (tier IN ('routine', 'coordination', 'cost_bearing')),
  status              text NOT NULL CHECK (status IN ('pending_approval', 'approved', 'declined', 'expired', 'in_progress', 'completed', 'failed')),
  params              jsonb NOT NULL,
  context             text,
  cost_cents          integer CHECK (cost_cents > 0),
  cost_description    text,
  currency            text NOT NULL DEFAULT 'usd',
  sheet               jsonb NOT NULL,
  approval_token      text NOT NULL UNIQUE,
  payment_session_id  text,
  hold_id             text,
  assignee_id         text,
  outcome             jsonb,
  created_at          timestamptz NOT NULL,
  expires_at          timestamptz NOT NULL,
  decided_at          timestamptz,
  started_at          timestamptz,
  finished_at         timestamptz,
  CHECK ((tier = 'cost_bearing') = (cost_cents IS NOT NULL))
);
CREATE INDEX care_jobs_account ON care_jobs (account_id, created_at DESC);
CREATE INDEX care_jobs_open ON care_jobs (status, created_at) WHERE status IN ('pending_approval', 'approved', 'in_progress');

-- Idempotency keys of POST /api/care-jobs (Stripe's rules; draft-ietf-httpapi-idempotency-key-header):
-- one row per (account, key), with the SHA-256 of the canonical request. `state` running: a request
-- holds the key until `locked_until` (a retry meanwhile is a 409; after it, a retry takes over, so a
-- crashed request does not strand its key); done: `job_id` is the job created in the same
-- transaction that wrote state done, and `response` replays it. Rows are kept 24 hours (`expires_at`;
-- the care-jobs cleanup job deletes older ones).
CREATE TABLE care_job_idempotency (
  account_id   text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key          text NOT NULL,
  request_hash text NOT NULL,
  state        text NOT NULL CHECK (state IN ('running', 'done')),
  lock_token   text,
  locked_until timestamptz,
  job_id       text REFERENCES care_jobs(id) ON DELETE CASCADE,
  response     jsonb,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (account_id, key),
  CHECK ((state = 'done') = (job_id IS NOT NULL))
);
CREATE INDEX care_job_idempotency_expiry ON care_job_idempotency (expires_at);
