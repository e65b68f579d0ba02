/**
 * The PaymentProcessor port (issue 35, item 1; STYLE.md 3). Billing is pay-per-use
 * (service-spec.md, What the service does): a temporary hold with manual capture for one visit,
 * captured when a doctor joins and released otherwise; a hold not captured within 7 days lapses,
 * as card networks let authorisations lapse. Adapters: adapters/embedded-processor.ts (default,
 * offline, with its own hosted page) and adapters/stripe-processor.ts (Stripe Checkout).
 *
 * The port is generic over what is paid for: a `PaymentPurpose` names the area and its record.
 * The area registers what happens when a hold for its purpose is authorised (PurposeRegistry);
 * that handler runs in the same transaction that records the authorisation, so there is never an
 * approved hold whose visit did not move on, nor the reverse.
 */
import type { Db } from '../ports/db.ts';

export type PurposeKind = 'visit' | 'care_job';

/** What a hold pays for: `ref` is the owning area's id (e.g. the conversation id). */
export interface PaymentPurpose {
  kind: PurposeKind;
  ref: string;
  userId: string;
}

export type ProcessorKind = 'embedded' | 'stripe';
export type HoldStatus = 'authorized' | 'captured' | 'released' | 'lapsed';

/** A hold (an authorisation with manual capture). Amounts in the currency's minor unit. */
export interface Hold {
  holdId: string;
  processor: ProcessorKind;
  purpose: PaymentPurpose;
  amountCents: number;
  currency: string;
  status: HoldStatus;
  brand: string;
  last4: string;
  authorizedAt: Date;
  /** 7 days after authorisation: capture after this fails with `conflict`/`hold_lapsed`. */
  lapsesAt: Date;
  capturedAt: Date | null;
  releasedAt: Date | null;
  lapsedAt: Date | null;
}

/** A hosted page link: the visit-hold page or the card-setup page. */
export interface HostedSession {
  sessionId: string;
  /** Where the person approves: `{BASE_URL}/pay/{sessionId}` (embedded) or Stripe Checkout's URL. */
  url: string;
  mode: 'hold' | 'setup';
  amountCents: number;
  currency: string;
  /** About 30 minutes after creation (service-spec.md, Limits: visit-payment link life). */
  expiresAt: Date;
}

/** A saved card (only brand and last four digits are ever stored). */
export interface SavedCard {
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  createdAt: Date;
}

/** The handlers an area registers for its purpose kind (composition root). */
export interface PurposeHandlers {
  /**
   * Runs inside the transaction that records the authorisation (hosted page, webhook or saved
   * card). Throwing rolls the authorisation back (the embedded page then shows a retryable error;
   * a Stripe webhook is answered 500 so Stripe redelivers).
   */
  onAuthorized(tx: Db, hold: Hold): Promise<void>;
  /** Optional: runs inside the transaction that marks a hold lapsed (7 days uncaptured). */
  onLapsed?(tx: Db, hold: Hold): Promise<void>;
}

/** Per-purpose handlers, filled at composition (api/app.ts) by the areas that take payments. */
export class PurposeRegistry {
  private readonly handlers = new Map<PurposeKind, PurposeHandlers>();

  /** Registers the handlers of `kind`; a second registration for the same kind is a wiring bug. */
  register(kind: PurposeKind, handlers: PurposeHandlers): void {
    if (this.handlers.has(kind)) throw new Error(`payment purpose ${kind} already has handlers`);
    this.handlers.set(kind, handlers);
  }

  get(kind: PurposeKind): PurposeHandlers | undefined {
    return this.handlers.get(kind);
  }
}

/**
 * What an area calls. Errors are AppErrors: `payment_hold_failed` (declined, insufficient funds),
 * `conflict` with code `hold_lapsed` / `hold_released` / `hold_captured`, `not_found`.
 */
export interface PaymentProcessor {
  readonly kind: ProcessorKind;
  /** A hosted page where the person approves a hold of `amountCents` for `purpose`. */
  createHoldSession(input: { purpose: PaymentPurpose; amountCents: number; currency: string }): Promise<HostedSession>;
  /** A hosted page that saves a card for later holds; charges nothing. */
  createSetupSession(input: { userId: string }): Promise<HostedSession>;
  /**
   * Places a hold with the user's newest saved card (POST /api/consultations/{id}/confirm).
   * Idempotent per purpose: an authorised hold for the purpose is returned as it is.
   * Throws `payment_hold_failed` (code `no_saved_card`, `card_declined`, `insufficient_funds`).
   */
  placeHoldWithSavedCard(input: { purpose: PaymentPurpose; amountCents: number; currency: string }): Promise<Hold>;
  /** Captures the whole hold. Idempotent: a captured hold is returned; concurrent calls capture once. */
  capture(holdId: string): Promise<Hold>;
  /** Releases (cancels) the hold. Idempotent; a lapsed hold is returned as it is; a captured one is a conflict. */
  release(holdId: string): Promise<Hold>;
  /** The live (authorised) or newest hold for a purpose, or null. */
  holdFor(purpose: Pick<PaymentPurpose, 'kind' | 'ref'>): Promise<Hold | null>;
  getHold(holdId: string): Promise<Hold | null>;
  savedCard(userId: string): Promise<SavedCard | null>;
}

/** 7 days: card networks let an uncaptured authorisation lapse; Stripe cancels it after 7 days. */
export const HOLD_LIFE_MS = 7 * 24 * 3600_000;
/** About 30 minutes (service-spec.md, Limits: visit-payment link life). */
export const SESSION_LIFE_MS = 30 * 60_000;
/** Wrong attempts on one hosted page before it closes (card-testing guard). */
export const MAX_SESSION_ATTEMPTS = 10;
/** The JobQueue job that lapses a hold at its `lapsesAt` (data: `{ holdId }`). */
export const LAPSE_JOB = 'payments.hold_lapse';
