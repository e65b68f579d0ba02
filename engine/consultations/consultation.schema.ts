/**
 * Contracts of the conversation operations (service-spec.md: Conversation, Message, PaymentGate,
 * Conversations endpoints), one zod schema each for validation, OpenAPI and MCP (STYLE.md 2).
 */
import { z } from 'zod';
import { CONVERSATION_STATUSES } from './consultation-status.ts';

export const ConversationStatusSchema = z.enum(CONVERSATION_STATUSES);

/** Path parameter `{id}` of /api/consultations/{id}; named conversationId in every interface. */
const ConversationId = z.string().trim().min(1).max(100).describe('The conversation id (conversationId from start_conversation or list_conversations).');
const MessageId = z.string().trim().min(1).max(100);
const PatientId = z.string().trim().min(1).max(100).describe('From GET /api/profile; omit for the account holder.');

/** ISO 3166-2 code: country, hyphen, 1-3 alphanumerics (e.g. US-CA). Case-insensitive on input. */
export const RegionSchema = z.string().trim().toUpperCase()
  .regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/, 'an ISO 3166-2 code such as US-CA (where the patient is physically right now)');

export const MessageSchema = z.object({
  id: z.string(),
  /** `text`, or a media message: `photo`, `video`, `file`. */
  type: z.enum(['text', 'photo', 'video', 'file']),
  content: z.string(),
  /** `user` (the patient, through their agent), `assistant` (carebridge's triage assistant), `provider`, `system`. */
  sender: z.enum(['user', 'assistant', 'provider', 'system']),
  timestamp: z.string(),
  senderId: z.string(),
  fileName: z.string().optional(),
});
export type Message = z.infer<typeof MessageSchema>;

export const PaymentGateSchema = z.object({
  consultationSummary: z.string(),
  ctaText: z.string(),
  /** `NONE` while no payment is due; `VISIT_HOLD` while a visit-payment hold awaits the patient's approval. */
  gateType: z.enum(['NONE', 'VISIT_HOLD']),
  isLoading: z.boolean(),
  paymentType: z.literal('pay_per_use'),
});
export type PaymentGate = z.infer<typeof PaymentGateSchema>;

export const InformationNeedSchema = z.object({
  /** Stable name of the need (e.g. `duration`, `gate_breathing`), for agents that track answers. */
  key: z.string(),
  /** True for the needs the newest assistant message asked about (answer these first). */
  asked: z.boolean(),
  prompt: z.string(),
  why: z.string(),
  /** `required` must be answered before a visit can be offered; `recommended` and `optional` help the clinician. */
  priority: z.enum(['required', 'recommended', 'optional']),
  /** True for a question that screens for an emergency; these are asked first. */
  redFlagGate: z.boolean(),
});

export const TriageStateSchema = z.object({
  acuity: z.enum(['emergency', 'urgent', 'routine', 'self_care']),
  redFlags: z.array(z.string()),
  summary: z.string().nullable(),
});

export const ConversationDetailSchema = z.object({
  conversationId: z.string(),
  title: z.string(),
  patientId: z.string(),
  status: ConversationStatusSchema,
  statusDescription: z.string(),
  region: z.string(),
  providerVisit: z.object({ active: z.boolean(), providerName: z.string().nullable(), consultId: z.string().nullable() }),
  pastVisits: z.array(z.object({ consultId: z.string(), closedAt: z.string(), hasNotes: z.boolean() })),
  messages: z.array(MessageSchema),
  omittedOlderMessages: z.number().int(),
  lastActivityAt: z.string(),
  updatedAt: z.string(),
  informationNeed: z.array(InformationNeedSchema),
  informationNeedAsOfMessageId: z.string().nullable(),
  paymentGate: PaymentGateSchema,
  nextSteps: z.array(z.string()),
  /** Latest triage outcome (null before the first assessment). `EMERGENCY` status iff acuity is `emergency`. */
  triage: TriageStateSchema.nullable(),
});
export type ConversationDetail = z.infer<typeof ConversationDetailSchema>;

export const ConversationListItemSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: ConversationStatusSchema,
  region: z.string(),
  hasActiveProvider: z.boolean(),
  pastVisitCount: z.number().int(),
  lastMessage: z.object({ type: z.string(), preview: z.string(), fileName: z.string().nullable(), timestamp: z.string() }).nullable(),
  lastActivityAt: z.string(),
  updatedAt: z.string(),
});

// ---- inputs and outputs -------------------------------------------------------------------

export const StartConversationInputSchema = z.strictObject({
  contextMessage: z.string().trim().min(1, 'describe the health concern').max(4000)
    .describe('First-person narrative of the health concern: symptom, duration, severity, associated symptoms, history.'),
  region: RegionSchema.describe('ISO 3166-2 code of where the patient physically is right now, e.g. US-CA.'),
  patientId: PatientId.optional(),
});
export const StartConversationOutputSchema = z.object({
  conversationId: z.string(),
  status: ConversationStatusSchema,
  region: z.string(),
  title: z.string(),
  agentInstructions: z.array(z.string()),
  nextStep: z.string(),
  nextStepArgs: z.record(z.string(), z.unknown()),
});

export const ListConversationsInputSchema = z.strictObject({
  limit: z.number().int().min(1).max(100).default(20).describe('Maximum conversations returned (default 20, at most 100).'),
  status: z.string().trim().max(200).optional()
    .describe('Comma-separated statuses; applied to the page of `limit` conversations returned (raise limit to find a rarer status).'),
});
export const ListConversationsOutputSchema = z.object({
  conversations: z.array(ConversationListItemSchema),
  /** All of the caller's conversations, before the status filter. */
  total: z.number().int(),
});

export const GetConversationInputSchema = z.strictObject({
  conversationId: ConversationId,
  messageLimit: z.number().int().min(1).max(200).default(50).describe('Newest messages returned (default 50); older ones are counted in omittedOlderMessages.'),
  afterMessageId: MessageId.optional().describe('Only messages newer than this one (the delta after the newest message already seen).'),
});

export const UpdateRegionInputSchema = z.strictObject({ conversationId: ConversationId, region: RegionSchema });
export const UpdateRegionOutputSchema = z.object({ success: z.boolean(), region: z.string(), appliesToNextRequest: z.boolean() });

export const CancelConversationInputSchema = z.strictObject({ conversationId: ConversationId });
export const CancelConversationOutputSchema = z.object({
  success: z.boolean(),
  conversationId: z.string(),
  status: ConversationStatusSchema,
  previousStatus: ConversationStatusSchema,
  /** True when a live request was stopped; false when the conversation was already IDLE (nothing to stop). */
  stopped: z.boolean(),
  note: z.string(),
});

const TextMessage = z.string().trim().min(1, 'a message must not be empty').max(4000);
export const SendMessageInputSchema = z.strictObject({
  conversationId: ConversationId,
  messages: z.array(TextMessage).min(1).max(10).optional().describe('Several messages, in order (first person, as the patient).'),
  text: TextMessage.optional().describe('A single message (alternative to messages).'),
  lastSeenMessageId: MessageId.optional().describe('Newest message id the caller has seen (read-first gate); a stale value is refused with READ_REQUIRED.'),
  waitForReply: z.boolean().default(true).describe('Wait up to about 55 seconds for the next reply and return it inline (default true).'),
}).superRefine((v, ctx) => {
  if (v.messages === undefined && v.text === undefined) ctx.addIssue({ code: 'custom', path: ['text'], message: 'give text or messages' });
  if (v.messages !== undefined && v.text !== undefined) ctx.addIssue({ code: 'custom', path: ['messages'], message: 'give text or messages, not both' });
});

export const WaitForReplyInputSchema = z.strictObject({
  conversationId: ConversationId,
  lastSeenMessageId: MessageId.optional().describe('Wait for a message newer than this one (default: the newest the caller was shown).'),
  timeoutSeconds: z.number().int().min(1).max(55).default(55).describe('How long to wait (at most 55 seconds).'),
});

/** The send / wait response (service-spec.md, POST …/messages, response fields). */
export const ReplyOutputSchema = z.object({
  sent: z.boolean(),
  messagesSent: z.number().int(),
  status: z.string(),
  reply: MessageSchema.optional(),
  replies: z.array(MessageSchema),
  stillWaiting: z.boolean(),
  connected: z.boolean(),
  statusChanged: ConversationStatusSchema.optional(),
  paymentRequired: z.boolean(),
  paymentGate: PaymentGateSchema.optional(),
  latestMessageId: z.string().nullable(),
  conversation: ConversationDetailSchema,
  userMessage: z.string().optional(),
  agentInstructions: z.array(z.string()),
  note: z.string().optional(),
  nextStep: z.string().optional(),
  nextStepArgs: z.record(z.string(), z.unknown()).optional(),
});
export type ReplyOutput = z.infer<typeof ReplyOutputSchema>;
