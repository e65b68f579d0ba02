/**
 * A cost-bearing job's hold (issue 39, item 1): collected on the approval page through the
 * PaymentProcessor port (purpose `care_job`); its authorisation approves the job in the same
 * transaction (onAuthorized). Captured when the care team completes the job; released when it
 * fails, and when an authorisation arrives for a job no longer pending (declined or expired
 * meanwhile). Capture and release are jobs queued in the transaction that decides them, and also
 * run at once after commit; both are idempotent (engine/visits/visit-holds.ts: settleHold).
 */
import type { Logger } from 'pino';
import type { Ports } from '../core/context.ts';
import type { Db } from '../ports/db.ts';
import type { JobQueue } from '../ports/jobs.ts';
import type { Hold, PaymentProcessor, PurposeHandlers } from '../payments/payment-processor.ts';
import { settleHold } from '../visits/visit-holds.ts';
import { applyJobTransition, loadJob } from './care-job-store.ts';
import { CARE_HOLD_JOB, CARE_HOLD_JOB_OPTIONS, type CareHoldJobData } from './care-jobs.ports.ts';

/** Queues a capture or release inside `tx` (it happens iff `tx` commits). */
export async function enqueueCareHold(tx: Db, jobs: JobQueue, data: CareHoldJobData): Promise<void> {
  await jobs.send(CARE_HOLD_JOB, data, { ...CARE_HOLD_JOB_OPTIONS, singletonKey: `${data.action}:${data.holdId}` }, tx);
}

/** Best-effort settle after commit; the queued job is the durable path. */
export async function settleCareHoldSoon(processor: PaymentProcessor | undefined, data: CareHoldJobData | null, log: Logger): Promise<void> {
  if (!processor || !data) return;
  try {
    await settleHold(processor, data);
  } catch (err) {
    log.warn({ err: (err as Error).message, holdId: data.holdId, action: data.action }, 'care job hold settle failed; the queued job retries');
  }
}

/** The `care_job` purpose handlers (registered in api/app.ts). */
export function careJobPurposeHandlers(ports: Ports): PurposeHandlers {
  return {
    async onAuthorized(tx: Db, hold: Hold) {
      const { jobs, outbox } = ports;
      if (!jobs || !outbox) throw new Error('care job approvals need the care platform');
      const job = await loadJob(tx, hold.purpose.ref, true);
      const now = ports.clock.now();
      if (!job || job.status !== 'pending_approval' || now >= job.expires_at || job.account_id !== hold.purpose.userId) {
        // The user paid for a job that was declined or expired meanwhile: nothing may be charged.
        await enqueueCareHold(tx, jobs, { holdId: hold.holdId, action: 'release' });
        return;
      }
      await applyJobTransition(tx, outbox, job, 'approve', {
        at: now, set: { hold_id: hold.holdId },
        message: 'The user approved the care job on their device and a payment hold was placed; the care team will carry it out. Call get_care_job for its status.',
      });
    },
  };
}
