/**
 * The patient's side of a paid visit (issue 35, item 2; service-spec.md, Conversations endpoints
 * `payment`, `confirm`, `notes`). The patient approves the hold themselves on the hosted page
 * (payment) or, with a card saved on the card-setup page, through confirm. Either approval moves
 * the conversation to MATCHING by itself (engine/visits/visit-holds.ts).
 */
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import { AppError } from '../core/errors.ts';
import type { HandlerContext } from '../core/context.ts';
import { requireAccount } from '../profile/onboarding.ts';
import { requirePayments } from '../payments/payments.ports.ts';
import { loadConversation, requireConversation, type ConversationRow } from '../consultations/consultation-store.ts';
import { visitHoldId } from './visit-holds.ts';
import { ConfirmOutputSchema, ConversationRefSchema, PaymentLinkSchema, VisitNotesSchema } from './visits.schema.ts';

function noGate(conv: ConversationRow): AppError {
  return new AppError('no_payment_gate', `No payment is due: the conversation is ${conv.status}, and a visit payment is asked only in PAYMENT_REQUIRED.`, {
    extra: { status: conv.status },
  });
}

async function ownConversation(ctx: HandlerContext, id: string): Promise<ConversationRow> {
  const { account } = await requireAccount(ctx);
  return requireConversation(ctx.ports.db, account.id, id);
}

export const getPaymentLink = defineOperation({
  name: 'get_payment_link',
  title: 'Get the visit-payment link',
  description: 'In PAYMENT_REQUIRED: a hosted page (paymentUrl, valid about 30 minutes) where the patient approves a temporary hold for one visit with a licensed provider; nothing is charged unless a provider joins. Give the link to the patient; never enter card details yourself. After approval the conversation moves to MATCHING by itself: call wait_for_reply. Outside PAYMENT_REQUIRED: no_payment_gate.',
  input: ConversationRefSchema,
  output: PaymentLinkSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/consultations/:conversationId/payment' }],
  handler: async (input, ctx) => {
    const conv = await ownConversation(ctx, input.conversationId);
    if (conv.status !== 'PAYMENT_REQUIRED') throw noGate(conv);
    const { processor, prices } = requirePayments(ctx);
    const s = await processor.createHoldSession({
      purpose: { kind: 'visit', ref: conv.id, userId: conv.accountId }, amountCents: prices.visitCents, currency: prices.currency,
    });
    const price = prices.visitCents / 100;
    const summaryLoading = conv.paymentGate?.isLoading ?? false;
    const body = {
      paymentUrl: s.url, sessionId: s.sessionId, priceCents: prices.visitCents, price, currency: prices.currency,
      expiresAt: s.expiresAt.toISOString(), summaryLoading,
      instructions: `Open this link to approve a temporary hold of ${price.toFixed(2)} ${prices.currency.toUpperCase()} for one visit with a licensed provider. Nothing is charged unless a provider joins; otherwise the hold is released. The link works for about 30 minutes.`,
      agentInstructions: [
        'Give paymentUrl to the patient to open in a browser; never ask for card numbers in chat and never approve it yourself.',
        'Then call wait_for_reply: once the hold is approved the status moves to MATCHING, then WITH_PROVIDER when a provider joins.',
        'If the patient does not want a visit, cancel the request (DELETE /api/consultations/{id}); a link paid later is then released.',
      ],
      nextStep: 'wait_for_reply' as const,
      nextStepArgs: { conversationId: conv.id },
    };
    // service-spec.md: while the summary still generates the answer is summary_loading; the link is valid regardless.
    if (summaryLoading) throw new AppError('summary_loading', 'The consultation summary is still being written; retry shortly. The link below is valid regardless.', { extra: body });
    return body;
  },
});

export const confirmProviderConnection = defineOperation({
  name: 'confirm_provider_connection',
  title: 'Confirm the visit with the saved card',
  description: 'In PAYMENT_REQUIRED, with a card the patient saved (create_payment_setup): places the temporary visit hold on that card, without a payment page, and the conversation moves to MATCHING. Call it only after the patient said yes to this visit and its price. No body besides the path. Declined or no saved card: payment_hold_failed (code no_saved_card, card_declined, insufficient_funds); then use get_payment_link. Repeating it after success returns the same hold.',
  input: ConversationRefSchema,
  output: ConfirmOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/consultations/:conversationId/confirm' }],
  handler: async (input, ctx) => {
    const conv = await ownConversation(ctx, input.conversationId);
    const { processor, prices } = requirePayments(ctx);
    // A repeated confirm after success answers with the hold already placed for this request.
    const already = conv.status !== 'PAYMENT_REQUIRED' ? await visitHoldId(ctx.ports.db, conv.id, conv.requestSeq) : null;
    if (conv.status !== 'PAYMENT_REQUIRED' && !(already && (conv.status === 'MATCHING' || conv.status === 'WITH_PROVIDER'))) throw noGate(conv);
    // Network (Stripe): outside any transaction. The approval's own transaction moves the status.
    const hold = already
      ? await processor.getHold(already)
      : await processor.placeHoldWithSavedCard({ purpose: { kind: 'visit', ref: conv.id, userId: conv.accountId }, amountCents: prices.visitCents, currency: prices.currency });
    if (!hold) throw new AppError('conflict', 'The visit hold could not be found.', { code: 'hold_missing' });
    const after = await loadConversation(ctx.ports.db, conv.id);
    return {
      success: true, conversationId: conv.id, status: after?.status ?? conv.status,
      hold: {
        holdId: hold.holdId, status: hold.status, amountCents: hold.amountCents, price: hold.amountCents / 100, currency: hold.currency,
        brand: hold.brand, last4: hold.last4, lapsesAt: hold.lapsesAt.toISOString(),
      },
      instructions: `A temporary hold of ${(hold.amountCents / 100).toFixed(2)} ${hold.currency.toUpperCase()} was placed on the ${hold.brand} card ending ${hold.last4}. It is charged only when a provider joins.`,
      agentInstructions: ['Tell the patient a provider is being matched.', 'Call wait_for_reply: the status moves to WITH_PROVIDER when a provider joins.'],
      nextStep: 'wait_for_reply' as const,
      nextStepArgs: { conversationId: conv.id },
    };
  },
});

export const getVisitNotes = defineOperation({
  name: 'get_visit_notes',
  title: 'Provider visit notes',
  description: 'The notes providers wrote for the conversation\'s finished visits (chiefComplaint, assessment, plan, summary). Notes exist only for visits closed with a note: check pastVisits[].hasNotes first.',
  input: ConversationRefSchema,
  output: VisitNotesSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/consultations/:conversationId/notes' }],
  handler: async (input, ctx) => {
    const conv = await ownConversation(ctx, input.conversationId);
    const { rows } = await ctx.ports.db.query(
      `SELECT n.visit_id, n.provider_id, n.chief_complaint, n.assessment, n.plan, n.summary, v.closed_at
       FROM visit_notes n JOIN conversation_visits v ON v.id = n.visit_id
       WHERE n.conversation_id = $1 AND v.closed_at IS NOT NULL ORDER BY v.closed_at`, [conv.id]);
    const notes = rows.map((r) => ({
      chatId: r.visit_id as string, providerId: r.provider_id as string, timestamp: new Date(r.closed_at as string).toISOString(),
      note: { chiefComplaint: r.chief_complaint as string, assessment: r.assessment as string, plan: r.plan as string, summary: r.summary as string },
    }));
    return { conversationId: conv.id, hasNotes: notes.length > 0, notes };
  },
});

export const visitPaymentOperations: AnyOperation[] = [getPaymentLink, confirmProviderConnection, getVisitNotes];
