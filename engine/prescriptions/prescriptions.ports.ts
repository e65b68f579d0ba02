/**
 * The prescriptions area's ports (STYLE.md 3), added to the handler context by declaration
 * merging; the composition root (api/prescriptions/prescriptions.wiring.ts) builds them.
 *
 * `PharmacyPartner` is the other party that fulfils US orders (service-spec.md: "US prescription
 * orders are fulfilled by an external pharmacy partner"). Like real partners it accepts an order,
 * reports what happens to it as events, pushes each event to us once (no retry), and offers the
 * same events as a cursor-paged feed so that a missed push is recovered by pulling.
 */
import type { Logger } from 'pino';
import type { JobQueue } from '../ports/jobs.ts';
import type { PartnerState } from './prescription-status.ts';
import type { Pharmacy, SearchPharmaciesInput } from './prescriptions.schema.ts';

/** What we send the partner: the order, never the conversation. */
export interface PartnerOrderRequest {
  /** Our prescriptionOrderId: the partner's idempotency key (a resubmission returns the same order). */
  clientRef: string;
  items: { drug: { name: string; strength: string; form: string }; quantity: number; instructions: string; hasRefill: boolean; refillQuantity: number }[];
  pharmacyNpi: string | null;
  prescriberNpi: string | null;
}

/** One event of the partner's feed. */
export interface PartnerEvent {
  /** Unique per event: pushes and pulls of the same event are deduplicated on it. */
  eventId: string;
  /** Monotonic across the partner's feed: orders apply only events newer than the last applied. */
  sequence: number;
  partnerOrderId: string;
  clientRef: string;
  state: PartnerState;
  /** Why, for error and cancelled. */
  reason: string | null;
  occurredAt: string;
}

export interface PartnerEventPage {
  events: PartnerEvent[];
  /** Pass back as `after` for the next page; unchanged when the page is empty. */
  cursor: string | null;
  hasMore: boolean;
}

export interface PharmacyPartner {
  /** Short stable name, stored with each order (`embedded`). */
  readonly name: string;
  /** Hands an order over (a network call: never inside a transaction). Idempotent on clientRef. */
  submit(order: PartnerOrderRequest): Promise<{ partnerOrderId: string }>;
  /** The feed after `after` (null: from the start), oldest first. */
  events(after: string | null, limit: number): Promise<PartnerEventPage>;
  /** Where pushed events go (one receiver; a receiver that throws loses the push: pull recovers it). */
  onEvent(receiver: (e: PartnerEvent) => Promise<void>): void;
  /** Starts the partner's own machinery (the embedded partner's timers on the job queue). */
  start?(jobs: JobQueue, log: Logger): Promise<void>;
}

/** NPPES pharmacy organisations from the pricing snapshot (adapter: adapters/pharmacy-directory.duckdb.ts). */
export interface PharmacyDirectory {
  /** Null when no snapshot is published. */
  dataVintage(): string | null;
  zipCentroid(zip5: string): Promise<{ latitude: number; longitude: number } | null>;
  /** Pharmacies matching the search, nearest first from `origin` (by name without one), with the total. */
  search(q: PharmacyQuery): Promise<{ rows: Pharmacy[]; count: number }>;
  byNpi(npi: string): Promise<Pharmacy | null>;
}

export interface PharmacyQuery extends Pick<SearchPharmaciesInput, 'name' | 'radiusKm' | 'offset' | 'limit'> {
  origin: { latitude: number; longitude: number } | null;
}

export interface PrescriptionsPorts {
  partner: PharmacyPartner;
  /** Absent when no pricing snapshot is open (GET /api/pharmacies answers 503). */
  pharmacies?: PharmacyDirectory;
  /** Seconds between reconciliation pulls; 0: only on demand. */
  reconcileSeconds: number;
}

declare module '../core/context.ts' {
  interface Ports {
    prescriptions?: PrescriptionsPorts;
  }
}

/** Hands a new order to the partner (after the order's transaction commits). */
export const SUBMIT_JOB = 'prescriptions.submit';
/** Pulls the partner's feed from the stored cursor (recovers missed pushes). */
export const RECONCILE_JOB = 'prescriptions.reconcile';
