/**
 * The Stripe adapter (issue 35, item 1): Checkout Sessions for the visit hold
 * (`payment_intent_data.capture_method=manual`) and for card setup (`mode=setup`), capture and
 * cancel on the PaymentIntent, and the webhook events that complete them
 * (https://docs.stripe.com/payments/place-a-hold-on-a-payment-method,
 * https://docs.stripe.com/payments/save-and-reuse?platform=checkout). Network calls are made
 * before or after, never inside, a database transaction; Stripe's idempotency keys make a retried
 * or raced capture/cancel a single one at Stripe too.
 */
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { AppError } from '../../core/errors.ts';
import {
  SESSION_LIFE_MS, type Hold, type HostedSession, type PaymentProcessor, type PaymentPurpose, type PurposeKind, type SavedCard,
} from '../payment-processor.ts';
import {
  captureHold, checkAmount, lapseHold, newId, recordAuthorization, recordCardSaved, recordFailure, releaseHold, type HoldDeps,
} from '../holds.ts';
import * as store from '../payment-store.ts';

export interface StripeProcessor extends PaymentProcessor {
  readonly kind: 'stripe';
  /** Checks the signature on the raw body (Stripe-Signature header) and returns the event. */
  verifyEvent(rawBody: Buffer, signature: string, secret: string): Stripe.Event;
  /** Applies one verified event; idempotent (Stripe delivers at least once). */
  handleEvent(event: Stripe.Event): Promise<void>;
}

export interface StripeDeps extends Omit<HoldDeps, 'processor'> {
  baseUrl: string;
  secretKey: string;
  /** A stand-in for https://api.stripe.com (tests). */
  apiBase?: string | undefined;
}

function clientFor(deps: StripeDeps): Stripe {
  const base = deps.apiBase ? new URL(deps.apiBase) : null;
  return new Stripe(deps.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(base ? { host: base.hostname, port: base.port || (base.protocol === 'http:' ? 80 : 443), protocol: base.protocol === 'http:' ? 'http' as const : 'https' as const } : {}),
  });
}

/** Stripe's outcome of a refused card, as our error (`payment_hold_failed` with Stripe's decline code). */
function cardFailure(e: unknown): { code: string; message: string } | null {
  if (e instanceof Stripe.errors.StripeCardError) return { code: e.decline_code ?? e.code ?? 'card_declined', message: e.message };
  return null;
}

function upstream(e: unknown): never {
  if (e instanceof AppError) throw e;
  throw new AppError('upstream_unavailable', 'The payment processor could not be reached; retry shortly.', { code: 'stripe_unavailable' });
}

const idOf = (v: string | { id: string } | null | undefined): string | null => (typeof v === 'string' ? v : v?.id ?? null);

/** Builds the Stripe processor. */
export function createStripeProcessor(deps: StripeDeps): StripeProcessor {
  const hd: HoldDeps = { ...deps, processor: 'stripe' };
  const { db, clock } = deps;
  const stripe = clientFor(deps);

  async function customerFor(userId: string): Promise<string> {
    const known = await store.getCustomer(db, userId, 'stripe');
    if (known) return known;
    const c = await stripe.customers.create({ metadata: { cb_user_id: userId } }, { idempotencyKey: `customer-${userId}` });
    return store.putCustomer(db, userId, 'stripe', c.id);
  }

  async function openSession(mode: 'hold' | 'setup', userId: string, purpose: PaymentPurpose | null, amountCents: number, currency: string): Promise<HostedSession> {
    checkAmount(amountCents, mode);
    const now = clock.now();
    const id = `ps_${randomBytes(24).toString('base64url')}`;
    const expiresAt = new Date(now.getTime() + SESSION_LIFE_MS);
    await store.insertSession(db, {
      id, processor: 'stripe', mode, userId, purposeKind: purpose?.kind ?? null, purposeRef: purpose?.ref ?? null, amountCents, currency,
      formToken: randomBytes(24).toString('base64url'), externalId: null, expiresAt, createdAt: now,
    });
    const metadata = { cb_session_id: id, cb_user_id: userId, ...(purpose ? { cb_purpose_kind: purpose.kind, cb_purpose_ref: purpose.ref } : {}) };
    const common = {
      customer: await customerFor(userId).catch(upstream),
      client_reference_id: id,
      metadata,
      success_url: `${deps.baseUrl}/pay/return?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${deps.baseUrl}/pay/return?cancelled=1`,
      // Stripe's minimum is 30 minutes; a minute more so that its page outlives ours by a little.
      expires_at: Math.floor(now.getTime() / 1000) + SESSION_LIFE_MS / 1000 + 60,
    };
    const cs = await stripe.checkout.sessions.create(mode === 'hold'
      ? {
        ...common, mode: 'payment',
        line_items: [{ quantity: 1, price_data: { currency, unit_amount: amountCents, product_data: { name: 'Provider visit (temporary hold)' } } }],
        payment_intent_data: { capture_method: 'manual', metadata },
      }
      : { ...common, mode: 'setup', currency, setup_intent_data: { metadata } },
    { idempotencyKey: `checkout-${id}` }).catch(upstream);
    if (!cs.url) throw new AppError('upstream_unavailable', 'The payment processor returned no page URL.', { code: 'stripe_no_url' });
    await store.setSessionExternalId(db, id, cs.id);
    return { sessionId: id, url: cs.url, mode, amountCents, currency, expiresAt };
  }

  /** Records the authorisation of a PaymentIntent in `requires_capture` (from Checkout or a webhook). */
  async function authorizeIntent(piId: string): Promise<void> {
    const pi = await stripe.paymentIntents.retrieve(piId, { expand: ['latest_charge'] });
    if (pi.status !== 'requires_capture') return;
    const sessionId = pi.metadata?.cb_session_id;
    const session = sessionId ? await store.getSession(db, sessionId) : null;
    if (!session || session.mode !== 'hold' || !session.purposeKind || !session.purposeRef) return; // not ours
    const charge = typeof pi.latest_charge === 'object' ? pi.latest_charge : null;
    const card = charge?.payment_method_details?.card;
    await recordAuthorization(hd, {
      purpose: { kind: session.purposeKind, ref: session.purposeRef, userId: session.userId },
      amountCents: pi.amount_capturable || pi.amount, currency: pi.currency, card: { brand: card?.brand ?? 'unknown', last4: card?.last4 ?? '0000' },
      sessionId: session.id, externalRef: pi.id,
    });
  }

  async function completeSetup(setupIntentId: string, sessionId: string): Promise<void> {
    const si = await stripe.setupIntents.retrieve(setupIntentId, { expand: ['payment_method'] });
    if (si.status !== 'succeeded') return;
    const pm = typeof si.payment_method === 'object' ? si.payment_method : null;
    const card = pm?.card;
    if (!pm || !card) return;
    await recordCardSaved(hd, { sessionId, card: { brand: card.brand, last4: card.last4, expMonth: card.exp_month, expYear: card.exp_year }, externalRef: pm.id });
  }

  async function handleEvent(event: Stripe.Event): Promise<void> {
    // Stripe has some 250 event types; the default ignores all but these.
    // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check
    switch (event.type) {
      case 'checkout.session.completed': {
        const cs = event.data.object;
        const ours = await store.getSessionByExternalId(db, cs.id);
        if (!ours) return;
        if (cs.mode === 'payment' && cs.payment_intent) await authorizeIntent(idOf(cs.payment_intent)!);
        if (cs.mode === 'setup' && cs.setup_intent) await completeSetup(idOf(cs.setup_intent)!, ours.id);
        return;
      }
      case 'payment_intent.amount_capturable_updated':
        return authorizeIntent(event.data.object.id);
      case 'payment_intent.succeeded': {
        const hold = await store.getHoldByExternalRef(db, event.data.object.id);
        // Captured at Stripe (e.g. from the Dashboard): record it, even past our lapse clock.
        if (hold?.status === 'authorized') await captureHold(hd, hold.holdId, undefined, true);
        return;
      }
      case 'payment_intent.canceled': {
        const pi = event.data.object;
        const hold = await store.getHoldByExternalRef(db, pi.id);
        if (hold?.status !== 'authorized') return;
        // Stripe cancels an uncaptured PaymentIntent itself after 7 days (reason `automatic`): a lapse.
        if (pi.cancellation_reason === 'automatic') await lapseHold(hd, hold.holdId, true);
        else await releaseHold(hd, hold.holdId);
        return;
      }
      case 'payment_intent.payment_failed': {
        const pi = event.data.object;
        const session = pi.metadata?.cb_session_id ? await store.getSession(db, pi.metadata.cb_session_id) : null;
        if (!session) return;
        const err = pi.last_payment_error;
        await recordFailure(db, {
          userId: session.userId, sessionId: session.id, amountCents: pi.amount, currency: pi.currency, code: err?.decline_code ?? err?.code ?? 'card_declined',
          card: { brand: err?.payment_method?.card?.brand ?? undefined, last4: err?.payment_method?.card?.last4 ?? undefined }, at: clock.now(),
        });
        return;
      }
      default:
        return; // other events are not ours to act on; answered 200 so Stripe stops sending them
    }
  }

  async function placeHoldWithSavedCard(input: { purpose: PaymentPurpose; amountCents: number; currency: string }): Promise<Hold> {
    const live = await store.holdForPurpose(db, input.purpose.kind, input.purpose.ref);
    if (live?.status === 'authorized') return live;
    const method = await store.newestMethod(db, input.purpose.userId, 'stripe');
    const customer = await store.getCustomer(db, input.purpose.userId, 'stripe');
    if (!method?.externalRef || !customer) throw new AppError('payment_hold_failed', 'No saved card: set one up with POST /api/subscription/setup, or pay on the hosted page.', { code: 'no_saved_card' });
    let pi: Stripe.PaymentIntent;
    try {
      pi = await stripe.paymentIntents.create({
        amount: input.amountCents, currency: input.currency, customer, payment_method: method.externalRef, capture_method: 'manual',
        confirm: true, off_session: true,
        metadata: { cb_user_id: input.purpose.userId, cb_purpose_kind: input.purpose.kind, cb_purpose_ref: input.purpose.ref },
      }, { idempotencyKey: newId('hold-intent') });
    } catch (e) {
      const failed = cardFailure(e);
      if (!failed) upstream(e);
      await recordFailure(db, { userId: input.purpose.userId, sessionId: null, amountCents: input.amountCents, currency: input.currency, code: failed.code, card: method, at: clock.now() });
      throw new AppError('payment_hold_failed', failed.message, { code: failed.code });
    }
    if (pi.status !== 'requires_capture') throw new AppError('payment_hold_failed', 'The saved card needs the patient’s action; use the hosted payment page.', { code: pi.status });
    const { hold } = await recordAuthorization(hd, { ...input, card: method, sessionId: null, externalRef: pi.id });
    return hold;
  }

  /** Capture/cancel at Stripe, treating "already done" as done (a retry after a lost response). */
  async function remote(kind: 'capture' | 'cancel', hold: Hold): Promise<void> {
    const piId = await store.holdExternalRef(db, hold.holdId);
    if (!piId) return;
    try {
      if (kind === 'capture') await stripe.paymentIntents.capture(piId, {}, { idempotencyKey: `capture-${hold.holdId}` });
      else await stripe.paymentIntents.cancel(piId, {}, { idempotencyKey: `cancel-${hold.holdId}` });
    } catch (e) {
      const already = e instanceof Stripe.errors.StripeInvalidRequestError && e.code === 'payment_intent_unexpected_state'
        && (e.payment_intent?.status === (kind === 'capture' ? 'succeeded' : 'canceled'));
      if (already) return;
      if (e instanceof Stripe.errors.StripeInvalidRequestError && e.payment_intent?.status === 'canceled' && kind === 'capture') {
        throw new AppError('conflict', 'Cannot capture the hold: the processor cancelled it (lapsed).', { code: 'hold_lapsed' });
      }
      upstream(e);
    }
  }

  return {
    kind: 'stripe',
    createHoldSession: (i) => openSession('hold', i.purpose.userId, i.purpose, i.amountCents, i.currency),
    createSetupSession: (i) => openSession('setup', i.userId, null, 0, 'usd'),
    placeHoldWithSavedCard,
    capture: (holdId) => captureHold(hd, holdId, (h) => remote('capture', h)),
    release: (holdId) => releaseHold(hd, holdId, (h) => remote('cancel', h)),
    holdFor: (p: { kind: PurposeKind; ref: string }) => store.holdForPurpose(db, p.kind, p.ref),
    getHold: (holdId) => store.getHold(db, holdId),
    savedCard: async (userId): Promise<SavedCard | null> => {
      const m = await store.newestMethod(db, userId, 'stripe');
      return m && { paymentMethodId: m.paymentMethodId, brand: m.brand, last4: m.last4, expMonth: m.expMonth, expYear: m.expYear, createdAt: m.createdAt };
    },
    verifyEvent: (raw, signature, secret) => stripe.webhooks.constructEvent(raw, signature, secret),
    handleEvent,
  };
}
