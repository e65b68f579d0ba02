import type { Db } from './db.ts';

/** The event names of service-spec.md, Events (the webhook `event` field). Later parts add more. */
export const EVENT_NAMES = [
  'triage_started', 'triage_reply', 'payment_gate_open', 'provider_matching', 'provider_joined',
  'provider_message', 'visit_ended', 'emergency', 'status_changed', 'prescription_added',
  'prescription_updated',
  // Care-job outcomes (the spec leaves their names open; docs/care-jobs.md, Statuses).
  'care_job_approved', 'care_job_declined', 'care_job_expired', 'care_job_started', 'care_job_completed', 'care_job_failed',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** An event as the change that causes it writes it (never message content: service-spec.md, Events rules). */
export interface NewEvent {
  event: EventName | (string & {});
  /** The account the event belongs to (whose webhook receives it). */
  userId: string;
  consultationId?: string | null;
  /** The conversation's new status, on status-change events. */
  status?: string | null;
  /** Human-readable imperative notification text (the webhook body's `message`). */
  message: string;
  /** Further non-content fields (ids, counts), passed through to deliveries. */
  data?: Record<string, unknown>;
}

export interface StoredEvent extends Required<Omit<NewEvent, 'data'>> {
  /** Monotonic within the database (a bigserial as a string); the delivery `eventId` is derived from it. */
  seq: string;
  eventId: string;
  data: Record<string, unknown>;
  createdAt: string;
}

/**
 * The transactional outbox (STYLE.md, Care: outbox, then side effects). `append` must be called
 * with the transaction that makes the state change, so that there is no event without its change
 * and no change without its event. Readers page through by `seq`.
 */
export interface Outbox {
  append(tx: Db, event: NewEvent): Promise<StoredEvent>;
  /** Events after `afterSeq` (exclusive), oldest first; filters are ANDed. */
  list(opts: { afterSeq?: string; userId?: string; consultationId?: string; limit?: number }): Promise<StoredEvent[]>;
}
