/**
 * Contracts of the visit operations (service-spec.md: POST …/payment, …/confirm, GET …/notes,
 * Provider visit notes; issue 35, item 4: the provider API), one zod schema each (STYLE.md 2).
 */
import { z } from 'zod';
import { ConversationStatusSchema, MessageSchema, TriageStateSchema } from '../consultations/consultation.schema.ts';

const ConversationId = z.string().trim().min(1).max(100).describe('The conversation id.');
export const ConversationRefSchema = z.strictObject({ conversationId: ConversationId });

export const PaymentLinkSchema = z.object({
  /** The hosted page where the patient approves the hold (valid about 30 minutes). */
  paymentUrl: z.string(),
  sessionId: z.string(),
  priceCents: z.number().int(),
  /** priceCents in the currency's major unit (49 for 4900 cents). */
  price: z.number(),
  currency: z.string(),
  expiresAt: z.string(),
  /** True while the consultation summary is still written (then the error is summary_loading). */
  summaryLoading: z.boolean(),
  instructions: z.string(),
  agentInstructions: z.array(z.string()),
  nextStep: z.literal('wait_for_reply'),
  nextStepArgs: z.record(z.string(), z.unknown()),
});

export const ConfirmOutputSchema = z.object({
  success: z.boolean(),
  conversationId: z.string(),
  /** MATCHING once the hold is placed (the approval moves the conversation by itself). */
  status: ConversationStatusSchema,
  hold: z.object({
    holdId: z.string(), status: z.string(), amountCents: z.number().int(), price: z.number(), currency: z.string(),
    brand: z.string(), last4: z.string(), lapsesAt: z.string(),
  }),
  instructions: z.string(),
  agentInstructions: z.array(z.string()),
  nextStep: z.literal('wait_for_reply'),
  nextStepArgs: z.record(z.string(), z.unknown()),
});

export const VisitNoteSchema = z.object({ chiefComplaint: z.string(), assessment: z.string(), plan: z.string(), summary: z.string() });

export const VisitNotesSchema = z.object({
  conversationId: z.string(),
  hasNotes: z.boolean(),
  notes: z.array(z.object({ chatId: z.string(), providerId: z.string(), timestamp: z.string(), note: VisitNoteSchema })),
});

// ---- provider API ------------------------------------------------------------------------

export const NoInputSchema = z.strictObject({});

const OfferSchema = z.object({
  conversationId: z.string(), title: z.string(), region: z.string(),
  /** 1 = you are the least-loaded licensed clinician this request was offered to. */
  rank: z.number().int(),
  offeredAt: z.string(),
  triage: TriageStateSchema.nullable(),
});
export const QueueSchema = z.object({
  provider: z.object({ providerId: z.string(), name: z.string(), role: z.string(), regions: z.array(z.string()) }),
  /** MATCHING requests offered to you, waiting for a clinician to accept (first come, first served). */
  waiting: z.array(OfferSchema),
  /** Your open visits. */
  active: z.array(z.object({ conversationId: z.string(), consultId: z.string(), title: z.string(), startedAt: z.string() })),
});

export const AcceptOutputSchema = z.object({
  success: z.boolean(), conversationId: z.string(), consultId: z.string(), status: ConversationStatusSchema,
  /** The hold's status after the capture attempt (`captured`; a processor outage leaves it to the retried job). */
  holdStatus: z.string().nullable(),
});

export const ProviderVisitSchema = z.object({
  conversationId: z.string(), title: z.string(), status: ConversationStatusSchema, region: z.string(),
  triage: TriageStateSchema.nullable(),
  visit: z.object({ consultId: z.string(), providerId: z.string(), providerName: z.string(), startedAt: z.string(), hasNotes: z.boolean() }).nullable(),
  messages: z.array(MessageSchema),
});

const Text = (max: number) => z.string().trim().min(1).max(max);
export const ProviderMessageInputSchema = z.strictObject({ conversationId: ConversationId, text: Text(4000).describe('The message to the patient.') });
export const ProviderMessageOutputSchema = z.object({ sent: z.boolean(), messageId: z.string(), timestamp: z.string() });

export const NoteInputSchema = z.strictObject({
  conversationId: ConversationId,
  chiefComplaint: Text(2000), assessment: Text(8000), plan: Text(8000), summary: Text(8000),
});
export const NoteOutputSchema = z.object({ success: z.boolean(), consultId: z.string(), hasNotes: z.boolean(), note: VisitNoteSchema });

export const EndOutputSchema = z.object({
  success: z.boolean(), conversationId: z.string(), consultId: z.string(), status: ConversationStatusSchema, hasNotes: z.boolean(),
});
