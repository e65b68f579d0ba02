/**
 * Payments endpoints (issue 35, item 2; service-spec.md, Payments). Billing is pay-per-use: a hold
 * per visit. `subscription` stays in the paths for compatibility; activate and DELETE are kept as
 * deprecated no-ops that answer with `Deprecation` and `Sunset` headers.
 */
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import { AppError } from '../core/errors.ts';
import type { HandlerContext } from '../core/context.ts';
import { HOLD_LIFE_MS } from './payment-processor.ts';
import { requirePayments } from './payments.ports.ts';
import {
  ActivateSchema, CancelSubscriptionSchema, NoInputSchema, SetupSessionSchema, SubscriptionSchema,
} from './payments.schema.ts';

/** RFC 9745 `Deprecation` (a structured date: 2026-01-01) and RFC 8594 `Sunset` (an HTTP-date). */
export const DEPRECATED_HEADERS = Object.freeze({
  deprecation: '@1767225600',
  sunset: 'Sat, 01 Jan 2028 00:00:00 GMT',
});

function userIdOf(ctx: HandlerContext): string {
  if (ctx.caller.kind !== 'user') throw new AppError('not_authenticated');
  return ctx.caller.userId;
}

async function paymentStatus(ctx: HandlerContext, userId: string): Promise<'CARD_ON_FILE' | 'NO_CARD'> {
  return (await requirePayments(ctx).processor.savedCard(userId)) ? 'CARD_ON_FILE' : 'NO_CARD';
}

export const getSubscription = defineOperation({
  name: 'get_subscription',
  title: 'Payment status and pay-per-use options',
  description: 'How visits are paid (pay per use: a temporary hold per provider visit, captured only when a doctor joins), the price of a visit, and the saved card if any. No subscription is needed.',
  input: NoInputSchema,
  output: SubscriptionSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/subscription' }],
  handler: async (_input, ctx) => {
    const userId = userIdOf(ctx);
    const { processor, prices } = requirePayments(ctx);
    const card = await processor.savedCard(userId);
    return {
      billingMode: 'pay_per_use' as const,
      paymentStatus: card ? 'CARD_ON_FILE' as const : 'NO_CARD' as const,
      processor: processor.kind,
      payPerUse: {
        visitPriceCents: prices.visitCents,
        visitPrice: prices.visitCents / 100,
        currency: prices.currency,
        holdLifeDays: HOLD_LIFE_MS / 86_400_000,
        description: 'A temporary hold for one visit is approved on a hosted payment page; nothing is charged until a doctor joins, and the hold is released otherwise.',
      },
      savedCard: card && { brand: card.brand, last4: card.last4, expMonth: card.expMonth, expYear: card.expYear },
      agentInstructions: card
        ? ['A card is on file: confirm_provider_connection can place the visit hold without a payment page.']
        : ['No card is on file: each visit is approved on the hosted payment page, or save a card with create_payment_setup.'],
    };
  },
});

export const createPaymentSetup = defineOperation({
  name: 'create_payment_setup',
  title: 'Create a card-setup link',
  description: 'Creates a hosted card-setup page where the patient saves a card for later visits. It charges nothing. Give the setupUrl to the patient to open; it works for about 30 minutes.',
  input: NoInputSchema,
  output: SetupSessionSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/subscription/setup' }],
  handler: async (_input, ctx) => {
    const userId = userIdOf(ctx);
    const s = await requirePayments(ctx).processor.createSetupSession({ userId });
    return {
      setupUrl: s.url,
      sessionId: s.sessionId,
      expiresAt: s.expiresAt.toISOString(),
      expiresInSeconds: Math.max(0, Math.round((s.expiresAt.getTime() - ctx.ports.clock.now().getTime()) / 1000)),
      instructions: 'Open this link to save a card for your visits. Nothing is charged now.',
      agentInstructions: ['Give setupUrl to the patient to open in a browser; never ask for card numbers in chat.', 'Check get_subscription afterwards: paymentStatus becomes CARD_ON_FILE.'],
    };
  },
});

export const activateSubscription = defineOperation({
  name: 'activate_subscription',
  title: 'Activate subscription (deprecated)',
  description: 'Deprecated recovery path for a stuck PENDING payment. Pay-per-use needs no activation: this changes nothing and reports the payment status.',
  input: NoInputSchema,
  output: ActivateSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  mcp: false,
  restHeaders: DEPRECATED_HEADERS,
  rest: [{ method: 'POST', path: '/api/subscription/activate' }],
  handler: async (_input, ctx) => ({ success: true, billingMode: 'pay_per_use' as const, paymentStatus: await paymentStatus(ctx, userIdOf(ctx)) }),
});

export const cancelSubscription = defineOperation({
  name: 'cancel_subscription',
  title: 'Cancel subscription (deprecated)',
  description: 'Deprecated legacy cancellation. Pay-per-use has no subscription: this changes nothing (a saved card stays; holds are released by their visit).',
  input: NoInputSchema,
  output: CancelSubscriptionSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  mcp: false,
  restHeaders: DEPRECATED_HEADERS,
  rest: [{ method: 'DELETE', path: '/api/subscription' }],
  handler: async (_input, ctx) => {
    userIdOf(ctx);
    return { success: true, billingMode: 'pay_per_use' as const, cancelled: false, message: 'Billing is pay per use; there is no subscription to cancel.' };
  },
});

export const paymentsOperations: AnyOperation[] = [getSubscription, createPaymentSetup, activateSubscription, cancelSubscription];
