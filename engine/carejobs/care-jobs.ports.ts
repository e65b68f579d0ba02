/**
 * The care-jobs area's job names and their data (engine/ports/jobs.ts). The area needs no ports of
 * its own: it uses the platform's (db, clock, jobs, outbox), payments' processor and pricing's.
 */
import { z } from 'zod';

/** At `expiresAt`: a job still pending_approval becomes expired (service-spec.md, Care job status). */
export const EXPIRE_JOB = 'carejobs.expire';
/** Captures or releases a care job's hold (network: never inside a transaction). */
export const CARE_HOLD_JOB = 'carejobs.hold';
/** Deletes idempotency keys older than 24 hours, then schedules itself again. */
export const KEY_CLEANUP_JOB = 'carejobs.key_cleanup';

export const ExpireJobDataSchema = z.object({ jobId: z.string() });
export const CareHoldJobDataSchema = z.object({ holdId: z.string(), action: z.enum(['capture', 'release']) });
export type CareHoldJobData = z.infer<typeof CareHoldJobDataSchema>;

/** Early runs (the queue's clock is the database's) retry with backoff from 2 s: about 34 minutes of skew. */
export const EXPIRE_JOB_OPTIONS = { retryLimit: 10, retryDelaySeconds: 2 } as const;
/** Hold jobs retry through a processor outage; capture and release are idempotent. */
export const CARE_HOLD_JOB_OPTIONS = { retryLimit: 8, retryDelaySeconds: 5, expireInSeconds: 120 } as const;
/** How often the key cleanup runs. */
export const KEY_CLEANUP_EVERY_MS = 3600_000;
