/**
 * The visits area's job workers (engine/workers.ts): matching, the matching deadline, and the
 * capture/release of visit holds. A job whose data does not parse is logged and dropped.
 */
import type { Logger } from 'pino';
import type { Ports } from '../core/context.ts';
import type { JobQueue } from '../ports/jobs.ts';
import type { z } from 'zod';
import { runMatchJob, runMatchTimeoutJob } from './matching.ts';
import { settleHold } from './visit-holds.ts';
import { HOLD_JOB, HoldJobDataSchema, MATCH_JOB, MATCH_TIMEOUT_JOB, MatchJobDataSchema } from './visits.ports.ts';

/** A WorkerRegistration (engine/workers.ts). */
export const registerVisitWorkers = async (ports: Ports & { jobs: JobQueue }, log: Logger): Promise<void> => {
  const { jobs, outbox, bus, visits, payments } = ports;
  if (!outbox || !bus || !visits) return;
  const full = { ...ports, jobs, outbox, bus, visits };
  const parsed = <T>(schema: z.ZodType<T>, name: string, data: unknown): T | null => {
    const r = schema.safeParse(data);
    if (!r.success) log.error({ job: name }, 'malformed visits job dropped');
    return r.success ? r.data : null;
  };
  await jobs.work(MATCH_JOB, async (job) => {
    const d = parsed(MatchJobDataSchema, MATCH_JOB, job.data);
    if (d) await runMatchJob(full, d, log);
  }, { concurrency: 2 });
  await jobs.work(MATCH_TIMEOUT_JOB, async (job) => {
    const d = parsed(MatchJobDataSchema, MATCH_TIMEOUT_JOB, job.data);
    if (d) await runMatchTimeoutJob(full, d, log);
  }, { concurrency: 2 });
  await jobs.work(HOLD_JOB, async (job) => {
    const d = parsed(HoldJobDataSchema, HOLD_JOB, job.data);
    if (d && payments) await settleHold(payments.processor, d);
  }, { concurrency: 2 });
};
