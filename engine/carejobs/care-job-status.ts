/**
 * The care job's status table (service-spec.md, Care job status), as data (STYLE.md, Care: state
 * machines as data). The spec's four statuses and moves are the first four rows; the statuses
 * after `approved` are ours (the spec leaves them open): the care team starts the work
 * (`in_progress`), then it ends `completed` or `failed`. A move not in the table is refused.
 */
export const CARE_JOB_STATUSES = ['pending_approval', 'approved', 'declined', 'expired', 'in_progress', 'completed', 'failed'] as const;
export type CareJobStatus = (typeof CARE_JOB_STATUSES)[number];

export type CareJobTrigger = 'approve' | 'decline' | 'expire' | 'start' | 'complete' | 'fail';

/** (from, trigger) -> to, and the outbox event each move writes (service-spec.md, Events: care-job outcomes). */
export const CARE_JOB_TRANSITIONS: readonly { from: CareJobStatus; trigger: CareJobTrigger; to: CareJobStatus; event: string }[] = [
  { from: 'pending_approval', trigger: 'approve', to: 'approved', event: 'care_job_approved' },
  { from: 'pending_approval', trigger: 'decline', to: 'declined', event: 'care_job_declined' },
  { from: 'pending_approval', trigger: 'expire', to: 'expired', event: 'care_job_expired' },
  { from: 'approved', trigger: 'start', to: 'in_progress', event: 'care_job_started' },
  { from: 'approved', trigger: 'fail', to: 'failed', event: 'care_job_failed' },
  { from: 'in_progress', trigger: 'complete', to: 'completed', event: 'care_job_completed' },
  { from: 'in_progress', trigger: 'fail', to: 'failed', event: 'care_job_failed' },
];

/** The move for (from, trigger), or null when the table has none. */
export function careJobMove(from: CareJobStatus, trigger: CareJobTrigger): { to: CareJobStatus; event: string } | null {
  const row = CARE_JOB_TRANSITIONS.find((t) => t.from === from && t.trigger === trigger);
  return row ? { to: row.to, event: row.event } : null;
}

/** Statuses no move leaves. */
export const FINAL_STATUSES: readonly CareJobStatus[] = ['declined', 'expired', 'completed', 'failed'];

/**
 * Tiers, assigned by the server (docs/care-jobs.md): `routine` books, cancels or reschedules at one
 * office, at no cost; `coordination` moves a referral between two offices (the referral's details
 * go to a new office, so the care team checks both sides); `cost_bearing` is any job with a `cost`,
 * for which the approval page collects a manual-capture hold, captured only when the job completes.
 */
export const CARE_JOB_TIERS = ['routine', 'coordination', 'cost_bearing'] as const;
export type CareJobTier = (typeof CARE_JOB_TIERS)[number];

export function tierFor(jobType: string, hasCost: boolean): CareJobTier {
  if (hasCost) return 'cost_bearing';
  return jobType === 'move_referral' ? 'coordination' : 'routine';
}

/** 15 minutes (service-spec.md, Limits: care-job approval link life). */
export const APPROVAL_LIFE_MS = 15 * 60_000;
/** Idempotency keys are kept 24 hours (issue 39, item 1). */
export const IDEMPOTENCY_LIFE_MS = 24 * 3600_000;
/** A request holding a key longer than this is presumed dead; a retry takes the key over. */
export const IDEMPOTENCY_LOCK_MS = 60_000;
