/**
 * The Stripe adapter (issue 35, item 1) against a local stand-in for api.stripe.com
 * (fake-stripe.ts): Checkout Session with manual capture for the visit hold, mode=setup for the
 * card, webhooks verified on the raw body, capture and cancel on the PaymentIntent, saved-card
 * holds and their declines, Stripe's own 7-day cancellation as a lapse.
 */
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import type { Hold } from '../../engine/payments/payment-processor.ts';
import type { PaymentsPorts } from '../../engine/payments/payments.ports.ts';
import { ledgerFor } from '../../engine/payments/payment-store.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { startFakeStripe, type FakeStripe } from './fake-stripe.ts';

const SECRET = 'whsec_testsecret123';
const signer = new Stripe('sk_test_unused');
let fake: FakeStripe;
let db: Db;
let t: TestApp;
let payments: PaymentsPorts;
const authorized: Hold[] = [];
let n = 0;

beforeAll(async () => {
  fake = await startFakeStripe();
  db = await openPgliteDb(undefined);
  t = await makeTestApp({
    db, identity: fakeIdentity(), visitPurpose: false,
    env: { PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc123', STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_BASE: fake.url, BASE_URL: 'https://carebridge.example' },
  });
  payments = t.services.ports.payments!;
  payments.purposes.register('visit', { onAuthorized: async (_tx, hold) => { authorized.push(hold); } });
});
afterAll(async () => {
  await t?.close();
  await db?.close();
  await fake?.close();
});

function deliver(type: string, object: object, opts: { secret?: string; tamper?: boolean } = {}) {
  const payload = JSON.stringify({ id: `evt_${++n}`, object: 'event', type, api_version: Stripe.API_VERSION, created: Math.floor(Date.now() / 1000), livemode: false, data: { object } });
  const signature = signer.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? SECRET });
  return t.app.inject({
    method: 'POST', url: '/webhooks/stripe', headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    payload: opts.tamper ? payload.replace('"livemode":false', '"livemode":true') : payload,
  });
}

async function authorizedHold(ref: string): Promise<{ hold: Hold; piId: string }> {
  const s = await payments.processor.createHoldSession({ purpose: { kind: 'visit', ref, userId: 'acct_s' }, amountCents: 4900, currency: 'usd' });
  const csId = new URL(s.url).pathname.split('/').pop()!;
  const cs = fake.completeCheckout(csId);
  expect((await deliver('checkout.session.completed', cs)).statusCode).toBe(200);
  return { hold: (await payments.processor.holdFor({ kind: 'visit', ref }))!, piId: cs.payment_intent as string };
}

describe('Stripe adapter', () => {
  it('creates a Checkout Session with manual capture for the visit hold; the link is Stripe’s', async () => {
    const s = await payments.processor.createHoldSession({ purpose: { kind: 'visit', ref: 'conv-a', userId: 'acct_s' }, amountCents: 4900, currency: 'usd' });
    expect(s.url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    const call = fake.calls.find((c) => c.path === '/v1/checkout/sessions')!;
    expect(call.params.get('mode')).toBe('payment');
    expect(call.params.get('payment_intent_data[capture_method]')).toBe('manual');
    expect(call.params.get('line_items[0][price_data][unit_amount]')).toBe('4900');
    expect(call.params.get('payment_intent_data[metadata][cb_session_id]')).toBe(s.sessionId);
    expect(call.params.get('success_url')).toBe('https://carebridge.example/pay/return?session_id={CHECKOUT_SESSION_ID}');
    expect(call.idempotencyKey).toBe(`checkout-${s.sessionId}`);
  });

  it('checkout.session.completed authorises the hold once, with the charge’s brand and last four, even when redelivered', async () => {
    const before = authorized.length;
    const { hold, piId } = await authorizedHold('conv-b');
    expect(hold).toMatchObject({ status: 'authorized', processor: 'stripe', brand: 'visa', last4: '4242', amountCents: 4900 });
    const cs = [...fake.sessions.values()].find((x) => x.payment_intent === piId)!;
    expect((await deliver('checkout.session.completed', cs)).statusCode).toBe(200);
    expect((await deliver('payment_intent.amount_capturable_updated', fake.intents.get(piId)!)).statusCode).toBe(200);
    expect(authorized.length - before).toBe(1);
    expect((await ledgerFor(db, { holdId: hold.holdId })).map((e) => [e.kind, e.detail])).toEqual([['authorize', piId]]);
  });

  it('refuses a webhook whose signature does not verify on the raw body (wrong secret, altered body, none)', async () => {
    const obj = { id: 'cs_x', object: 'checkout.session', mode: 'payment' };
    expect((await deliver('checkout.session.completed', obj, { secret: 'whsec_other' })).statusCode).toBe(400);
    expect((await deliver('checkout.session.completed', obj, { tamper: true })).statusCode).toBe(400);
    const none = await t.app.inject({ method: 'POST', url: '/webhooks/stripe', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ error: 'invalid_request', code: 'bad_signature' });
    for (const payload of ['', 'not json', '\u0000\u0001', '{'.repeat(10_000)]) {
      const r = await t.app.inject({ method: 'POST', url: '/webhooks/stripe', headers: { 'content-type': 'text/plain', 'stripe-signature': 't=1,v1=abc' }, payload });
      expect(r.statusCode).toBe(400);
    }
    // A valid event about something that is not ours is acknowledged and ignored.
    expect((await deliver('customer.created', { id: 'cus_1', object: 'customer' })).statusCode).toBe(200);
  });

  it('capture calls Stripe with an idempotency key: two concurrent captures, one capture at Stripe and one in the ledger', async () => {
    const { hold, piId } = await authorizedHold('conv-c');
    const [a, b] = await Promise.all([payments.processor.capture(hold.holdId), payments.processor.capture(hold.holdId)]);
    expect([a.status, b.status]).toEqual(['captured', 'captured']);
    expect(fake.intents.get(piId)!.status).toBe('succeeded');
    const captureCalls = fake.calls.filter((c) => c.path === `/v1/payment_intents/${piId}/capture`);
    expect(new Set(captureCalls.map((c) => c.idempotencyKey))).toEqual(new Set([`capture-${hold.holdId}`]));
    expect((await ledgerFor(db, { holdId: hold.holdId })).filter((e) => e.kind === 'capture')).toHaveLength(1);
    expect((await payments.processor.capture(hold.holdId)).status).toBe('captured');
    // Stripe's own success event for a capture already recorded changes nothing.
    expect((await deliver('payment_intent.succeeded', fake.intents.get(piId)!)).statusCode).toBe(200);
    expect((await ledgerFor(db, { holdId: hold.holdId })).filter((e) => e.kind === 'capture')).toHaveLength(1);
  });

  it('release cancels the PaymentIntent; releasing again is a no-op', async () => {
    const { hold, piId } = await authorizedHold('conv-d');
    expect((await payments.processor.release(hold.holdId)).status).toBe('released');
    expect(fake.intents.get(piId)!.status).toBe('canceled');
    expect((await payments.processor.release(hold.holdId)).status).toBe('released');
    expect(fake.calls.filter((c) => c.path === `/v1/payment_intents/${piId}/cancel`)).toHaveLength(1);
  });

  it('Stripe cancelling an uncaptured PaymentIntent itself (reason automatic, after 7 days) is a lapse', async () => {
    const { hold, piId } = await authorizedHold('conv-e');
    const pi = { ...fake.intents.get(piId)!, status: 'canceled', cancellation_reason: 'automatic' };
    expect((await deliver('payment_intent.canceled', pi)).statusCode).toBe(200);
    expect((await payments.processor.getHold(hold.holdId))!.status).toBe('lapsed');
    await expect(payments.processor.capture(hold.holdId)).rejects.toMatchObject({ code: 'conflict', details: { code: 'hold_lapsed' } });
  });

  it('card setup: a mode=setup Checkout Session; the webhook saves brand and last four; later holds use it off-session', async () => {
    const s = await payments.processor.createSetupSession({ userId: 'acct_card' });
    const csId = new URL(s.url).pathname.split('/').pop()!;
    const call = fake.calls.filter((c) => c.path === '/v1/checkout/sessions').pop()!;
    expect(call.params.get('mode')).toBe('setup');
    expect(call.params.get('customer')).toMatch(/^cus_test_/);
    expect((await deliver('checkout.session.completed', fake.completeSetup(csId, { id: 'pm_card_visa', brand: 'visa', last4: '4242' }))).statusCode).toBe(200);
    expect(await payments.processor.savedCard('acct_card')).toMatchObject({ brand: 'visa', last4: '4242' });
    const hold = await payments.processor.placeHoldWithSavedCard({ purpose: { kind: 'visit', ref: 'conv-f', userId: 'acct_card' }, amountCents: 4900, currency: 'usd' });
    expect(hold).toMatchObject({ status: 'authorized', processor: 'stripe', last4: '4242' });
    const create = fake.calls.filter((c) => c.path === '/v1/payment_intents').pop()!;
    expect(Object.fromEntries(['capture_method', 'confirm', 'off_session', 'payment_method'].map((k) => [k, create.params.get(k)])))
      .toEqual({ capture_method: 'manual', confirm: 'true', off_session: 'true', payment_method: 'pm_card_visa' });
  });

  it('a saved card Stripe declines gives payment_hold_failed with Stripe’s decline code, and a ledger failure', async () => {
    const s = await payments.processor.createSetupSession({ userId: 'acct_decl' });
    const csId = new URL(s.url).pathname.split('/').pop()!;
    await deliver('checkout.session.completed', fake.completeSetup(csId, { id: 'pm_card_chargeDeclined', brand: 'visa', last4: '0002' }));
    await expect(payments.processor.placeHoldWithSavedCard({ purpose: { kind: 'visit', ref: 'conv-g', userId: 'acct_decl' }, amountCents: 4900, currency: 'usd' }))
      .rejects.toMatchObject({ code: 'payment_hold_failed', details: { code: 'generic_decline' } });
    expect((await ledgerFor(db, { userId: 'acct_decl' })).map((e) => [e.kind, e.detail])).toEqual([['card_saved', 'pm_card_chargeDeclined'], ['failure', 'generic_decline']]);
  });

  it('configuration: stripe needs its keys', async () => {
    const { loadConfig } = await import('../../engine/core/config.ts');
    expect(() => loadConfig({ PAYMENT_PROCESSOR: 'stripe' })).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => loadConfig({ PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x1' })).toThrow(/STRIPE_WEBHOOK_SECRET/);
    expect(() => loadConfig({ PAYMENT_PROCESSOR: 'paypal' })).toThrow(/PAYMENT_PROCESSOR/);
    expect(() => loadConfig({ VISIT_PRICE_CENTS: '-5' })).toThrow(/VISIT_PRICE_CENTS/);
    expect(loadConfig({}).payments).toMatchObject({ processor: 'embedded', visitPriceCents: 4900, currency: 'usd' });
  });
});
