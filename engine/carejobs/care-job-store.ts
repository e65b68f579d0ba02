/**
 * Care job rows (migration 045) and the one `applyJobTransition`: every status move goes through
 * it, inside the transaction that writes its outbox event (STYLE.md, Care: outbox, then side
 * effects), and a move the table (care-job-status.ts) does not hold is refused, never half applied.
 */
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import type { Db } from '../ports/db.ts';
import type { Outbox } from '../ports/outbox.ts';
import { CARE_JOB_STATUSES, CARE_JOB_TIERS, careJobMove, type CareJobStatus, type CareJobTrigger } from './care-job-status.ts';
import { JOB_TYPES, SheetSchema } from './care-jobs.schema.ts';

/** The outcome as stored and shown: the care team's words, and whether the job failed. */
export interface StoredOutcome { summary: string; reference: string | null; appointmentLabel: string | null; failed: boolean }

const ts = z.union([z.date(), z.string()]).transform((v) => new Date(v));
const JobRowSchema = z.object({
  id: z.string(),
  account_id: z.string(),
  patient_id: z.string().nullable(),
  job_type: z.enum(JOB_TYPES),
  tier: z.enum(CARE_JOB_TIERS),
  status: z.enum(CARE_JOB_STATUSES),
  params: z.record(z.string(), z.unknown()),
  context: z.string().nullable(),
  cost_cents: z.number().int().nullable(),
  cost_description: z.string().nullable(),
  currency: z.string(),
  sheet: SheetSchema,
  approval_token: z.string(),
  payment_session_id: z.string().nullable(),
  hold_id: z.string().nullable(),
  assignee_id: z.string().nullable(),
  outcome: z.object({ summary: z.string(), reference: z.string().nullable(), appointmentLabel: z.string().nullable(), failed: z.boolean() }).nullable(),
  created_at: ts,
  expires_at: ts,
  decided_at: ts.nullable(),
  started_at: ts.nullable(),
  finished_at: ts.nullable(),
});
export type CareJobRow = z.infer<typeof JobRowSchema>;

export type NewCareJob = Pick<CareJobRow, 'id' | 'account_id' | 'patient_id' | 'job_type' | 'tier' | 'params' | 'context' | 'cost_cents'
  | 'cost_description' | 'currency' | 'sheet' | 'approval_token' | 'created_at' | 'expires_at'>;

export async function insertJob(tx: Db, j: NewCareJob): Promise<void> {
  await tx.query(
    `INSERT INTO care_jobs (id, account_id, patient_id, job_type, tier, status, params, context, cost_cents, cost_description, currency, sheet,
       approval_token, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, 'pending_approval', $6::jsonb, $7, $8, $9, $10, $11::jsonb, $12, $13, $14)`,
    [j.id, j.account_id, j.patient_id, j.job_type, j.tier, JSON.stringify(j.params), j.context, j.cost_cents, j.cost_description, j.currency,
      JSON.stringify(j.sheet), j.approval_token, j.created_at.toISOString(), j.expires_at.toISOString()]);
}

/** The job by id (`lock`: FOR UPDATE, inside a transaction), or null. */
export async function loadJob(db: Db, id: string, lock = false): Promise<CareJobRow | null> {
  const { rows } = await db.query(`SELECT * FROM care_jobs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ? JobRowSchema.parse(rows[0]) : null;
}

export async function loadJobByToken(db: Db, token: string): Promise<CareJobRow | null> {
  const { rows } = await db.query('SELECT * FROM care_jobs WHERE approval_token = $1', [token]);
  return rows[0] ? JobRowSchema.parse(rows[0]) : null;
}

/** The caller's own job, or 404 (another account's job is not found, never forbidden). */
export async function requireOwnJob(db: Db, accountId: string, id: string): Promise<CareJobRow> {
  const job = await loadJob(db, id);
  if (!job || job.account_id !== accountId) throw new AppError('not_found', 'No care job with this jobId belongs to your account.', { field: 'jobId' });
  return job;
}

/** Jobs in `statuses`, oldest first (the care team's queue). */
export async function listJobs(db: Db, statuses: readonly CareJobStatus[], limit = 200): Promise<CareJobRow[]> {
  const { rows } = await db.query('SELECT * FROM care_jobs WHERE status = ANY($1::text[]) ORDER BY created_at LIMIT $2', [[...statuses], limit]);
  return rows.map((r) => JobRowSchema.parse(r));
}

/** Pending jobs whose approval window has passed (the start-up sweep after downtime). */
export async function dueExpiries(db: Db, now: Date, limit = 100): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM care_jobs WHERE status = 'pending_approval' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
    [now.toISOString(), limit]);
  return rows.map((r) => r.id);
}

export interface TransitionOptions {
  at: Date;
  /** The event's human-readable text (service-spec.md, Events: `message`); never the outcome's words. */
  message: string;
  set?: { hold_id?: string; assignee_id?: string; outcome?: StoredOutcome; payment_session_id?: string };
}

const STAMP: Partial<Record<CareJobStatus, string>> = {
  approved: 'decided_at', declined: 'decided_at', expired: 'decided_at', in_progress: 'started_at', completed: 'finished_at', failed: 'finished_at',
};

/**
 * Moves a locked job by `trigger` and appends its event, in `tx`. Refuses (409 `conflict`, code
 * `invalid_job_transition`) a move the table does not hold. Returns the updated row.
 */
export async function applyJobTransition(tx: Db, outbox: Outbox, job: CareJobRow, trigger: CareJobTrigger, o: TransitionOptions): Promise<CareJobRow> {
  const move = careJobMove(job.status, trigger);
  if (!move) {
    throw new AppError('conflict', `The care job is ${job.status}; it cannot ${trigger} from there.`, { code: 'invalid_job_transition', extra: { status: job.status } });
  }
  const sets = ['status = $2'];
  const params: unknown[] = [job.id, move.to];
  const stamp = STAMP[move.to];
  if (stamp) { params.push(o.at.toISOString()); sets.push(`${stamp} = $${params.length}`); }
  for (const [k, v] of Object.entries(o.set ?? {})) {
    if (v === undefined) continue;
    params.push(k === 'outcome' ? JSON.stringify(v) : v);
    sets.push(`${k} = $${params.length}${k === 'outcome' ? '::jsonb' : ''}`);
  }
  const { rows } = await tx.query(`UPDATE care_jobs SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params);
  const next = JobRowSchema.parse(rows[0]);
  await outbox.append(tx, {
    event: move.event, userId: job.account_id, status: move.to, message: o.message,
    data: { jobId: job.id, jobType: job.job_type, tier: job.tier },
  });
  return next;
}

/** Records the hosted payment session opened for a job's hold (the page reuses it). */
export async function setPaymentSession(db: Db, jobId: string, sessionId: string): Promise<void> {
  await db.query('UPDATE care_jobs SET payment_session_id = $2 WHERE id = $1', [jobId, sessionId]);
}
