/**
 * The health-records job (engine/workers.ts): `records.sync` imports one patient's records with
 * `syncRecords`. One queued-or-active job per patient (singletonKey); the sync itself also claims
 * the connection in the database, so two processes never import the same patient at once.
 */
import { z } from 'zod';
import type { Logger } from 'pino';
import type { Ports } from '../core/context.ts';
import type { JobQueue } from '../ports/jobs.ts';
import { sqlRecordsStore } from './records-store.ts';
import { syncRecords } from './sync-records.ts';

export const SYNC_QUEUE = 'records.sync';
const SyncJobSchema = z.object({ patientId: z.string().min(1) });

/** Queues a sync (`startSync` of the records ports). */
export async function sendSync(jobs: JobQueue, patientId: string): Promise<void> {
  // A payer failure is recorded by the sync and not retried (the user resyncs); one retry covers
  // a storage hiccup. A long import of a large record gets 15 minutes a try.
  await jobs.send(SYNC_QUEUE, { patientId }, { singletonKey: patientId, retryLimit: 1, expireInSeconds: 900 });
}

/** The area's WorkerRegistration (engine/workers.ts; typed here structurally, so records does not import the root list). */
export async function recordsWorkers(ports: Ports & { jobs: JobQueue }, log: Logger): Promise<void> {
  const records = ports.records;
  if (!records) return;
  await ports.jobs.work(SYNC_QUEUE, async (job) => {
    const { patientId } = SyncJobSchema.parse(job.data);
    await syncRecords(patientId, {
      store: sqlRecordsStore(ports.db), client: records.client, box: records.box, payers: records.payers, clock: ports.clock, log,
    });
  });
}
