/**
 * The moves of a care job after creation, each in one transaction with its event: expiry (the
 * timer), the user's decision on the approval page, and the care team's start / complete / fail.
 * Transport-free: the approval page (api/carejobs/) and the care-team operations call these.
 */
import type { Logger } from 'pino';
import type { Ports } from '../core/context.ts';
import { AppError } from '../core/errors.ts';
import { applyJobTransition, loadJob, type CareJobRow } from './care-job-store.ts';
import { enqueueCareHold, settleCareHoldSoon } from './care-job-holds.ts';
import type { CareHoldJobData } from './care-jobs.ports.ts';
import type { Outcome } from './care-jobs.schema.ts';

type CarePorts = Ports & Required<Pick<Ports, 'jobs' | 'outbox'>>;

/** The platform ports, or 503 on a host without them (the pricing-only host). */
export function carePorts(ports: Ports): CarePorts {
  if (!ports.jobs || !ports.outbox) throw new AppError('upstream_unavailable', 'Care jobs are not available on this host.');
  return ports as CarePorts;
}

/**
 * Expires a pending job whose 15 minutes have passed: the one expiry, run by the timer, by a read
 * of the job (get_care_job) and by the approval page. The row lock makes it idempotent, so any of
 * them may race: one moves the job and writes `care_job_expired`, the others find it settled.
 * There is no hold to release here: a pending job never holds one (an authorisation approves the
 * job in its own transaction, and one arriving after the expiry is released by onAuthorized,
 * care-job-holds.ts). `not_due`: the timer ran early by this process's clock (the worker fails so
 * the queue retries later).
 */
export async function expireIfDue(ports: CarePorts, jobId: string): Promise<'expired' | 'not_due' | 'settled'> {
  return ports.db.transaction(async (tx) => {
    const job = await loadJob(tx, jobId, true);
    if (!job || job.status !== 'pending_approval') return 'settled';
    const now = ports.clock.now();
    if (now < job.expires_at) return 'not_due';
    await applyJobTransition(tx, ports.outbox, job, 'expire', {
      at: now, message: 'The care job expired: the user did not approve it within 15 minutes. Nothing was done or charged; create a new job if it is still wanted.',
    });
    return 'expired';
  });
}

/**
 * The job as it stands now: one still pending past its window is expired first (expireIfDue), so
 * a read never shows `pending_approval` once approval is refused, whether or not the timer ran.
 */
export async function currentJob(ports: Ports, job: CareJobRow): Promise<CareJobRow> {
  if (job.status !== 'pending_approval' || ports.clock.now() < job.expires_at) return job;
  await expireIfDue(carePorts(ports), job.id);
  return await loadJob(ports.db, job.id) ?? job;
}

/** The job locked for a decision by its owner, expiring it first when its time has passed. */
async function lockedPending(ports: CarePorts, tx: Parameters<Parameters<Ports['db']['transaction']>[0]>[0], jobId: string, accountId: string): Promise<CareJobRow> {
  const job = await loadJob(tx, jobId, true);
  if (!job || job.account_id !== accountId) throw new AppError('not_found', 'No such care job for this account.');
  if (job.status === 'pending_approval' && ports.clock.now() >= job.expires_at) {
    throw new AppError('conflict', 'This approval link has expired; nothing was done.', { code: 'approval_expired', extra: { status: 'expired' } });
  }
  return job;
}

/** The user approves a job that costs nothing (a cost-bearing one is approved by its hold's authorisation). */
export async function approveFree(ports: CarePorts, jobId: string, accountId: string): Promise<CareJobRow> {
  await expireIfDue(ports, jobId);
  return ports.db.transaction(async (tx) => {
    const job = await lockedPending(ports, tx, jobId, accountId);
    if (job.cost_cents !== null) throw new AppError('conflict', 'This job needs a payment hold to be approved.', { code: 'hold_required' });
    return applyJobTransition(tx, ports.outbox, job, 'approve', {
      at: ports.clock.now(),
      message: 'The user approved the care job on their device; the care team will carry it out. Call get_care_job for its status.',
    });
  });
}

/** The user declines. A hold page left open is released if it is paid later (care-job-holds.ts). */
export async function declineJob(ports: CarePorts, jobId: string, accountId: string): Promise<CareJobRow> {
  await expireIfDue(ports, jobId);
  return ports.db.transaction(async (tx) => {
    const job = await lockedPending(ports, tx, jobId, accountId);
    return applyJobTransition(tx, ports.outbox, job, 'decline', {
      at: ports.clock.now(), message: 'The user declined the care job; nothing will be done or charged. Ask the user before proposing it again.',
    });
  });
}

const TEAM_MESSAGES = {
  start: 'The care team started working on the care job. Call get_care_job for its status.',
  complete: 'The care team completed the care job. Call get_care_job for the outcome and tell the user.',
  fail: 'The care team could not complete the care job; any payment hold was released. Call get_care_job for the outcome and tell the user.',
} as const;

/**
 * A care-team move. complete captures the job's hold, fail releases it: queued in the same
 * transaction, then run at once after commit (capture happens once whatever runs it).
 */
export async function teamAction(ports: CarePorts, jobId: string, action: 'start' | 'complete' | 'fail', providerId: string, outcome: Outcome | undefined, log: Logger): Promise<CareJobRow> {
  if (action !== 'start' && !outcome) throw new AppError('invalid_request', `To ${action} a job, send an outcome with a summary of what happened.`, { field: 'outcome' });
  let settle: CareHoldJobData | null = null;
  const row = await ports.db.transaction(async (tx) => {
    const job = await loadJob(tx, jobId, true);
    if (!job) throw new AppError('not_found', 'No care job with this jobId.', { field: 'jobId' });
    const next = await applyJobTransition(tx, ports.outbox, job, action, {
      at: ports.clock.now(), message: TEAM_MESSAGES[action],
      set: {
        ...(action === 'start' ? { assignee_id: providerId } : {}),
        ...(outcome ? { outcome: { summary: outcome.summary, reference: outcome.reference ?? null, appointmentLabel: outcome.appointmentLabel ?? null, failed: action === 'fail' } } : {}),
      },
    });
    if (job.hold_id && action !== 'start') {
      settle = { holdId: job.hold_id, action: action === 'complete' ? 'capture' : 'release' };
      await enqueueCareHold(tx, ports.jobs, settle);
    }
    return next;
  });
  await settleCareHoldSoon(ports.payments?.processor, settle, log);
  return row;
}
