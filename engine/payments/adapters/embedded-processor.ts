/**
 * The embedded processor (issue 35, item 1; default, offline): a small real implementation of a
 * card processor's protocol with its own hosted page at `{BASE_URL}/pay/{sessionId}`
 * (api/web/payments.routes.ts). Holds, captures and releases are rows in our own tables; card
 * numbers are checked (embedded-cards.ts) and forgotten, keeping the brand and last four digits.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../core/errors.ts';
import {
  MAX_SESSION_ATTEMPTS, SESSION_LIFE_MS, type Hold, type HostedSession, type PaymentProcessor, type PaymentPurpose, type SavedCard,
} from '../payment-processor.ts';
import { captureHold, checkAmount, recordAuthorization, recordCardSaved, recordFailure, releaseHold, type HoldDeps } from '../holds.ts';
import * as store from '../payment-store.ts';
import { checkCard, isHoldFailure, type CardField, type CardForm, type DeclineCode } from './embedded-cards.ts';

/** What the hosted page shows for a session. */
export type PageState =
  | { state: 'open'; session: store.SessionRow }
  | { state: 'completed'; session: store.SessionRow; card: { brand: string; last4: string } | null }
  | { state: 'expired'; session: store.SessionRow };

/** The outcome of one form submission. */
export type SubmitResult =
  | { result: 'invalid'; errors: { field: CardField; message: string }[] }
  | { result: 'declined'; code: DeclineCode; holdFailed: boolean; field: CardField | null; message: string }
  | { result: 'approved' }
  | { result: 'not_open'; state: PageState | null }
  | { result: 'bad_token' };

/** The embedded processor: the port, plus what its hosted page needs. */
export interface EmbeddedProcessor extends PaymentProcessor {
  readonly kind: 'embedded';
  pageState(sessionId: string): Promise<PageState | null>;
  submit(sessionId: string, formToken: string, form: CardForm): Promise<SubmitResult>;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Builds the embedded processor on the tables of 020_payments.sql. */
export function createEmbeddedProcessor(deps: Omit<HoldDeps, 'processor'> & { baseUrl: string }): EmbeddedProcessor {
  const hd: HoldDeps = { ...deps, processor: 'embedded' };
  const { db, clock } = deps;

  async function openSession(s: { mode: 'hold' | 'setup'; userId: string; purpose: PaymentPurpose | null; amountCents: number; currency: string }): Promise<HostedSession> {
    checkAmount(s.amountCents, s.mode);
    const now = clock.now();
    // The id is the capability in the link: 192 random bits.
    const id = `ps_${randomBytes(24).toString('base64url')}`;
    const expiresAt = new Date(now.getTime() + SESSION_LIFE_MS);
    await store.insertSession(db, {
      id, processor: 'embedded', mode: s.mode, userId: s.userId, purposeKind: s.purpose?.kind ?? null, purposeRef: s.purpose?.ref ?? null,
      amountCents: s.amountCents, currency: s.currency, formToken: randomBytes(24).toString('base64url'), externalId: null, expiresAt, createdAt: now,
    });
    return { sessionId: id, url: `${deps.baseUrl}/pay/${id}`, mode: s.mode, amountCents: s.amountCents, currency: s.currency, expiresAt };
  }

  async function pageState(sessionId: string): Promise<PageState | null> {
    const session = await store.getSession(db, sessionId);
    if (!session || session.processor !== 'embedded') return null;
    if (session.status === 'completed') {
      const hold = session.holdId ? await store.getHold(db, session.holdId) : null;
      const method = !hold ? await store.newestMethod(db, session.userId, 'embedded') : null;
      const card = hold ?? method;
      return { state: 'completed', session, card: card ? { brand: card.brand, last4: card.last4 } : null };
    }
    if (session.status === 'expired' || clock.now() >= session.expiresAt) return { state: 'expired', session };
    return { state: 'open', session };
  }

  async function submit(sessionId: string, formToken: string, form: CardForm): Promise<SubmitResult> {
    const state = await pageState(sessionId);
    if (state?.state !== 'open') return { result: 'not_open', state };
    const { session } = state;
    if (!sameToken(formToken, session.formToken)) return { result: 'bad_token' };
    const now = clock.now();
    const check = checkCard(form, now);
    if (check.kind === 'invalid') return { result: 'invalid', errors: check.errors };
    const failed = check.kind === 'declined' ? { code: check.code, field: check.field, message: check.message }
      // 0341 saves as a card but declines a charge, as on Stripe.
      : session.mode === 'hold' && check.declinesCharges ? { code: 'card_declined' as const, field: 'cc-number' as const, message: 'Your card was declined. Try another card.' }
        : null;
    if (failed) {
      await db.transaction(async (tx) => {
        await recordFailure(tx, { userId: session.userId, sessionId, amountCents: session.amountCents, currency: session.currency, code: failed.code, card: check.card, at: now });
        if (await store.bumpAttempts(tx, sessionId) >= MAX_SESSION_ATTEMPTS) await store.expireSession(tx, sessionId);
      });
      return { result: 'declined', holdFailed: isHoldFailure(failed.code), ...failed };
    }
    if (check.kind !== 'ok') return { result: 'not_open', state };
    if (session.mode === 'setup') {
      await recordCardSaved(hd, { sessionId, card: check.card, externalRef: null, declinesCharges: check.declinesCharges });
      return { result: 'approved' };
    }
    await recordAuthorization(hd, {
      purpose: { kind: session.purposeKind!, ref: session.purposeRef!, userId: session.userId },
      amountCents: session.amountCents, currency: session.currency, card: check.card, sessionId, externalRef: null,
    });
    return { result: 'approved' };
  }

  async function placeHoldWithSavedCard(input: { purpose: PaymentPurpose; amountCents: number; currency: string }): Promise<Hold> {
    const live = await store.holdForPurpose(db, input.purpose.kind, input.purpose.ref);
    if (live?.status === 'authorized') return live;
    const card = await store.newestMethod(db, input.purpose.userId, 'embedded');
    if (!card) throw new AppError('payment_hold_failed', 'No saved card: set one up with POST /api/subscription/setup, or pay on the hosted page.', { code: 'no_saved_card' });
    const now = clock.now();
    const expired = card.expYear * 12 + card.expMonth < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
    if (card.declinesCharges || expired) {
      const code = expired ? 'expired_card' : 'card_declined';
      await recordFailure(db, { userId: input.purpose.userId, sessionId: null, amountCents: input.amountCents, currency: input.currency, code, card, at: now });
      throw new AppError('payment_hold_failed', expired ? 'The saved card has expired.' : 'The saved card was declined.', { code });
    }
    const { hold } = await recordAuthorization(hd, { ...input, card, sessionId: null, externalRef: null });
    return hold;
  }

  return {
    kind: 'embedded',
    createHoldSession: (i) => openSession({ mode: 'hold', userId: i.purpose.userId, purpose: i.purpose, amountCents: i.amountCents, currency: i.currency }),
    createSetupSession: (i) => openSession({ mode: 'setup', userId: i.userId, purpose: null, amountCents: 0, currency: 'usd' }),
    placeHoldWithSavedCard,
    capture: (holdId) => captureHold(hd, holdId),
    release: (holdId) => releaseHold(hd, holdId),
    holdFor: (p) => store.holdForPurpose(db, p.kind, p.ref),
    getHold: (holdId) => store.getHold(db, holdId),
    savedCard: async (userId): Promise<SavedCard | null> => {
      const m = await store.newestMethod(db, userId, 'embedded');
      return m && { paymentMethodId: m.paymentMethodId, brand: m.brand, last4: m.last4, expMonth: m.expMonth, expYear: m.expYear, createdAt: m.createdAt };
    },
    pageState,
    submit,
  };
}
