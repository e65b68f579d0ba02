/**
 * The visits area's ports and job names (issue 35, items 1, 3, 4). Wired by the composition root
 * (api/app.ts) from configuration; engine/core knows no area (declaration merging).
 */
import { z } from 'zod';

declare module '../core/context.ts' {
  interface Ports {
    visits?: VisitsPorts;
  }
}

export interface VisitsPorts {
  /** MATCHING_TIMEOUT_SECONDS: nobody accepting within this releases the hold and returns to IDLE. */
  matchingTimeoutSeconds: number;
  /** A match try running longer is presumed dead (its server was killed) and retried (default MATCH_JOB_EXPIRE_SECONDS). */
  matchJobExpireSeconds?: number;
}

/**
 * A match job is a few queries; a try still "active" after this is one whose process died, and the
 * queue's supervisor retries it. The queue's default (60 s) would hold a paid request that long.
 */
export const MATCH_JOB_EXPIRE_SECONDS = 30;

/** Offers a MATCHING request to licensed clinicians, least loaded first; schedules the time-out. */
export const MATCH_JOB = 'visits.match';
/** At the matching deadline: a request still MATCHING returns to IDLE (trigger matching_timeout). */
export const MATCH_TIMEOUT_JOB = 'visits.matching_timeout';
/** Captures or releases one visit hold (network: never inside a transaction). */
export const HOLD_JOB = 'visits.hold';

/**
 * The bus topic woken when a request is offered to this provider (matching): the clinician
 * console's queue listens here. A hint only; the queue is re-read from visit_offers.
 */
export const offersTopic = (providerId: string): string => `offers:${providerId}`;

export const MatchJobDataSchema = z.object({ conversationId: z.string(), requestSeq: z.number().int() });
export type MatchJobData = z.infer<typeof MatchJobDataSchema>;
export const HoldJobDataSchema = z.object({ holdId: z.string(), action: z.enum(['capture', 'release']) });
export type HoldJobData = z.infer<typeof HoldJobDataSchema>;

/** Hold jobs retry for a while (a processor outage); capture and release are idempotent. */
export const HOLD_JOB_OPTIONS = { retryLimit: 8, retryDelaySeconds: 5, expireInSeconds: 120 } as const;
