/**
 * The conversation state machine as data (STYLE.md, Care: state machines as data), mirroring
 * service-spec.md, "Conversation status". One row per (from, trigger) -> to, with the event the
 * move writes to the outbox. `applyTransition` (consultation-store.ts) is the only code that
 * changes a conversation's status; a move that is not in this table is refused, never half applied.
 */
import type { EventName } from '../ports/outbox.ts';

export const CONVERSATION_STATUSES = ['IDLE', 'TRIAGING', 'PAYMENT_REQUIRED', 'MATCHING', 'WITH_PROVIDER', 'EMERGENCY'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

export type Trigger =
  /** POST /api/consultations (the spec's worked example returns TRIAGING). */
  | 'start'
  /** A patient message on an IDLE conversation: triage re-runs on a new request. */
  | 'patient_message'
  /** Triage has what it needs: the payment gate opens. */
  | 'triage_complete'
  /** The red-flag screen or the triage engine found an emergency. */
  | 'emergency'
  /** The patient approved the visit-payment hold (care part 2). */
  | 'payment_approved'
  /** The patient dismissed the payment gate: no visit now; the hold, if any, is released. */
  | 'dismiss_gate'
  /** A provider accepted the visit (care part 2). */
  | 'provider_joined'
  /** Nobody accepted in time: the hold is released (care part 2). */
  | 'matching_timeout'
  /** The provider wrapped the visit up (care part 2). */
  | 'visit_ended'
  /** DELETE /api/consultations/{id}: the live request stops. */
  | 'cancel';

export interface Transition {
  from: ConversationStatus | null;
  trigger: Trigger;
  to: ConversationStatus;
  /** The outbox event this move writes (service-spec.md, Events). */
  event: EventName;
}

const LIVE: ConversationStatus[] = ['TRIAGING', 'PAYMENT_REQUIRED', 'MATCHING', 'WITH_PROVIDER'];

/** service-spec.md, Conversation status, row by row. */
export const TRANSITIONS: readonly Transition[] = Object.freeze([
  { from: null, trigger: 'start', to: 'TRIAGING', event: 'triage_started' },
  { from: 'IDLE', trigger: 'patient_message', to: 'TRIAGING', event: 'triage_started' },
  { from: 'TRIAGING', trigger: 'triage_complete', to: 'PAYMENT_REQUIRED', event: 'payment_gate_open' },
  { from: 'PAYMENT_REQUIRED', trigger: 'payment_approved', to: 'MATCHING', event: 'provider_matching' },
  { from: 'PAYMENT_REQUIRED', trigger: 'dismiss_gate', to: 'IDLE', event: 'status_changed' },
  { from: 'MATCHING', trigger: 'provider_joined', to: 'WITH_PROVIDER', event: 'provider_joined' },
  { from: 'MATCHING', trigger: 'matching_timeout', to: 'IDLE', event: 'status_changed' },
  { from: 'WITH_PROVIDER', trigger: 'visit_ended', to: 'IDLE', event: 'visit_ended' },
  // "any live request -> DELETE -> IDLE"
  ...LIVE.map((from) => ({ from, trigger: 'cancel' as const, to: 'IDLE' as const, event: 'status_changed' as const })),
  // "any -> conversation flagged as emergency -> EMERGENCY" (EMERGENCY itself is not re-engageable)
  ...(['IDLE', ...LIVE] as ConversationStatus[]).map((from) => ({ from, trigger: 'emergency' as const, to: 'EMERGENCY' as const, event: 'emergency' as const })),
]);

/** The move for (from, trigger), or null when the table has none. */
export function findTransition(from: ConversationStatus | null, trigger: Trigger): Transition | null {
  return TRANSITIONS.find((t) => t.from === from && t.trigger === trigger) ?? null;
}

/** The spec's meaning of each status, as the detail's `statusDescription`. */
export const STATUS_DESCRIPTION: Record<ConversationStatus, string> = {
  IDLE: 'Nothing is in progress. Send a message to start a new request; the visit history is kept.',
  TRIAGING: 'The triage assistant is gathering information about the symptoms.',
  PAYMENT_REQUIRED: 'Triage is complete. A visit with a licensed provider needs the patient to approve a temporary payment hold (or dismiss the offer).',
  MATCHING: 'The payment hold is approved; a licensed provider is being matched.',
  WITH_PROVIDER: 'A provider is connected; messaging is asynchronous.',
  EMERGENCY: 'Emergency care is advised: the patient should call 911 (or 988 for a mental-health crisis) now. This conversation cannot continue.',
};

/** Statuses with a live request (DELETE stops it). */
export function isLive(status: ConversationStatus): boolean {
  return LIVE.includes(status);
}
