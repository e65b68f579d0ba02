/**
 * The care-jobs area's workers (engine/workers.ts): the 15-minute expiry timer, hold capture and
 * release, and the 24-hour idempotency-key cleanup. At start-up it also expires whatever came due
 * while no process ran. A job whose data does not parse is logged and dropped.
 */
import type { Logger } from 'pino';
import type { Ports } from '../core/context.ts';
import type { JobQueue } from '../ports/jobs.ts';
import { settleHold } from '../visits/visit-holds.ts';
import { expireIfDue } from './care-job-actions.ts';
import { deleteExpiredKeys } from './care-job-idempotency.ts';
import { dueExpiries } from './care-job-store.ts';
import { CARE_HOLD_JOB, CareHoldJobDataSchema, EXPIRE_JOB, ExpireJobDataSchema, KEY_CLEANUP_EVERY_MS, KEY_CLEANUP_JOB } from './care-jobs.ports.ts';

/** A WorkerRegistration (engine/workers.ts). */
export const registerCareJobWorkers = async (ports: Ports & { jobs: JobQueue }, log: Logger): Promise<void> => {
  const { jobs, outbox } = ports;
  if (!outbox) return;
  const care = { ...ports, jobs, outbox };
  await jobs.work(EXPIRE_JOB, async (job) => {
    const d = ExpireJobDataSchema.safeParse(job.data);
    if (!d.success) { log.error({ job: EXPIRE_JOB }, 'malformed care-jobs job dropped'); return; }
    // Early by this process's clock: fail, so the queue retries with backoff.
    if (await expireIfDue(care, d.data.jobId) === 'not_due') throw new Error(`care job ${d.data.jobId} is not due to expire yet`);
  }, { concurrency: 2 });
  await jobs.work(CARE_HOLD_JOB, async (job) => {
    const d = CareHoldJobDataSchema.safeParse(job.data);
    if (!d.success) { log.error({ job: CARE_HOLD_JOB }, 'malformed care-jobs job dropped'); return; }
    if (ports.payments) await settleHold(ports.payments.processor, d.data);
  }, { concurrency: 2 });
  // One cleanup per hour slot: the singleton key names the slot, so starts and runs coalesce.
  const sendNext = async () => {
    const slot = Math.floor(ports.clock.now().getTime() / KEY_CLEANUP_EVERY_MS) + 1;
    await jobs.send(KEY_CLEANUP_JOB, {}, { startAfter: new Date(slot * KEY_CLEANUP_EVERY_MS), singletonKey: `slot-${slot}` });
  };
  await jobs.work(KEY_CLEANUP_JOB, async () => {
    const n = await deleteExpiredKeys(ports.db, ports.clock.now());
    if (n) log.info({ deleted: n }, 'expired care-job idempotency keys deleted');
    await sendNext();
  });
  await deleteExpiredKeys(ports.db, ports.clock.now());
  await sendNext();
  for (const id of await dueExpiries(ports.db, ports.clock.now())) await expireIfDue(care, id);
};
