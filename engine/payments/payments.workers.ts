/**
 * The payments area's job workers (engine/workers.ts): the 7-day hold lapse. Registered at
 * start-up, so the queue exists before the first transactional send to it, and lapses whatever
 * came due while no process ran.
 */
import type { Ports } from '../core/context.ts';
import type { JobQueue } from '../ports/jobs.ts';
import { startLapseWorker } from './holds.ts';

/** A WorkerRegistration (engine/workers.ts; not imported from there: areas never import the root). */
export const registerPaymentWorkers = async (ports: Ports & { jobs: JobQueue }): Promise<void> => {
  const payments = ports.payments;
  if (!payments) return;
  await startLapseWorker({ db: ports.db, clock: ports.clock, jobs: ports.jobs, purposes: payments.purposes, processor: payments.processor.kind });
};
