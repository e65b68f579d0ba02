/**
 * The area's job workers, registered by the composition root once the platform is up. A job whose
 * data does not parse is logged and dropped (retrying cannot fix it).
 */
import type { Logger } from 'pino';
import type { Ports } from '../core/context.ts';
import { TRIAGE_JOB } from './consultation.ports.ts';
import { TriageJobDataSchema } from './consultations.operations.ts';
import { runTriageJob } from './triage-run.ts';

export async function registerConsultationWorkers(ports: Ports, log: Logger): Promise<void> {
  if (!ports.jobs) throw new Error('consultation workers need the job queue');
  await ports.jobs.work(TRIAGE_JOB, async (job) => {
    const data = TriageJobDataSchema.safeParse(job.data);
    if (!data.success) {
      log.error({ jobId: job.id, job: TRIAGE_JOB }, 'malformed triage job dropped');
      return;
    }
    await runTriageJob(ports, data.data, log);
  }, { concurrency: 4 });
}
