/**
 * The conversation area's ports on the handler context (declaration merging; engine/core knows no
 * area). Wired by the composition root (api/app.ts) from configuration.
 */
import type { TriageEngine } from '../triage/triage.port.ts';
import type { Db } from '../ports/db.ts';

declare module '../core/context.ts' {
  interface Ports {
    consultations?: ConsultationPorts;
  }
}

export interface ConsultationPorts {
  /** The triage engine (always screened by the red-flag rules first; engine/triage). */
  triage: TriageEngine;
  /** ISO 3166-2 regions served now (CARE_REGIONS; service-spec.md: only US-CA). */
  regions: readonly string[];
  /** How long a send or wait_for_reply waits for the next reply (about 55 s; CARE_REPLY_WAIT_SECONDS). */
  replyWaitMs: number;
  /** A triage try running longer than this is presumed dead (its process crashed) and retried. */
  triageJobExpireSeconds: number;
  /**
   * Called inside the transaction of DELETE (a live request stopped): the visits area queues the
   * release of the request's hold there. Returns what to run after commit (the release itself,
   * which may be network), or null. Wired by the composition root; absent, nothing is released.
   */
  onRequestStopped?: (tx: Db, conv: { id: string; requestSeq: number }) => Promise<(() => Promise<void>) | null>;
}

/** Queue options of a triage job: retried after a failure, and after a crash once its try expires. */
export function triageJobOptions(p: ConsultationPorts) {
  return { retryLimit: 3, retryDelaySeconds: 1, expireInSeconds: p.triageJobExpireSeconds };
}

/** Job names of the area (the queue's `name`). */
export const TRIAGE_JOB = 'consultation.triage';

/** Data of a triage job: answer the request's patient messages up to `upToSeq`. */
export interface TriageJobData {
  conversationId: string;
  requestSeq: number;
  upToSeq: number;
}
