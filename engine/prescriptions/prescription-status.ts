/**
 * The prescription order's status (service-spec.md, Prescription order status: `UNKNOWN` is given,
 * the rest is ours) as data (STYLE.md, state machines): the partner's lifecycle states, the status
 * each maps to, and the moves an order may make. A move not in the table is refused and recorded,
 * never half applied (prescription-sync.ts).
 *
 *   UNKNOWN           written, sent to the partner; the partner has said nothing yet
 *   RECEIVED          the partner accepted it and routed it to a pharmacy
 *   IN_PROGRESS       the pharmacy is filling it
 *   READY_FOR_PICKUP  filled; waiting for the patient at the pharmacy
 *   COMPLETED         picked up (final)
 *   CANCELLED         cancelled, or returned to stock after not being picked up (final)
 *   ERROR             the partner could not fill it; `statusReason` says why (final)
 *
 * Partner events may arrive out of order (a push lost, recovered later by a pull): an order moves
 * forward only, so a later state may skip earlier ones, and an older event arriving after a newer
 * one is stale and ignored.
 */
export const PRESCRIPTION_STATUSES = ['UNKNOWN', 'RECEIVED', 'IN_PROGRESS', 'READY_FOR_PICKUP', 'COMPLETED', 'CANCELLED', 'ERROR'] as const;
export type PrescriptionStatus = (typeof PRESCRIPTION_STATUSES)[number];

/** The states a pharmacy partner reports (the embedded partner's lifecycle; real partners map onto it). */
export const PARTNER_STATES = ['received', 'in_progress', 'ready_for_pickup', 'completed', 'cancelled', 'error'] as const;
export type PartnerState = (typeof PARTNER_STATES)[number];

export const STATUS_OF: Readonly<Record<PartnerState, PrescriptionStatus>> = {
  received: 'RECEIVED',
  in_progress: 'IN_PROGRESS',
  ready_for_pickup: 'READY_FOR_PICKUP',
  completed: 'COMPLETED',
  cancelled: 'CANCELLED',
  error: 'ERROR',
};

/** from -> the statuses it may move to. Final statuses move nowhere. */
export const TRANSITIONS: Readonly<Record<PrescriptionStatus, readonly PrescriptionStatus[]>> = {
  UNKNOWN: ['RECEIVED', 'IN_PROGRESS', 'READY_FOR_PICKUP', 'COMPLETED', 'CANCELLED', 'ERROR'],
  RECEIVED: ['IN_PROGRESS', 'READY_FOR_PICKUP', 'COMPLETED', 'CANCELLED', 'ERROR'],
  IN_PROGRESS: ['READY_FOR_PICKUP', 'COMPLETED', 'CANCELLED', 'ERROR'],
  READY_FOR_PICKUP: ['COMPLETED', 'CANCELLED'],
  COMPLETED: [],
  CANCELLED: [],
  ERROR: [],
};

export function canMove(from: PrescriptionStatus, to: PrescriptionStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isFinal(s: PrescriptionStatus): boolean {
  return TRANSITIONS[s].length === 0;
}
