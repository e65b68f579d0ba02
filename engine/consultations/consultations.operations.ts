/**
 * Conversation operations (issue 34, item 2; service-spec.md, Conversations), served as REST routes
 * and MCP tools from these declarations. All require a bearer token; one user never sees another's
 * conversation (the same 404 as one that does not exist).
 */
import { z } from 'zod';
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import { AppError } from '../core/errors.ts';
import { requireAccount } from '../profile/onboarding.ts';
import { CONVERSATION_STATUSES, isLive, type ConversationStatus } from './consultation-status.ts';
import { TRIAGE_JOB, triageJobOptions, type TriageJobData } from './consultation.ports.ts';
import {
  CancelConversationInputSchema, CancelConversationOutputSchema, ConversationDetailSchema, GetConversationInputSchema,
  ListConversationsInputSchema, ListConversationsOutputSchema, ReplyOutputSchema, SendMessageInputSchema,
  StartConversationInputSchema, StartConversationOutputSchema, UpdateRegionInputSchema, UpdateRegionOutputSchema,
  WaitForReplyInputSchema,
} from './consultation.schema.ts';
import {
  applyTransition, findMessage, insertConversation, insertMessage, lastMessages, listConversations, markSeen, newId,
  requireConversation, touch, visitCounts,
} from './consultation-store.ts';
import { conversationDetail, titleFrom } from './consultation-view.ts';
import { carePorts, sendMessages, waitForReply } from './send-message.ts';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

function regionRefusal(region: string, served: readonly string[]): AppError {
  return new AppError('REGION_NOT_SUPPORTED', `Care is not offered in ${region} yet. Regions served now: ${served.join(', ')}.`, {
    field: 'region', code: 'REGION_NOT_SUPPORTED', extra: { region, regions: [...served] },
  });
}

export const startConversation = defineOperation({
  name: 'start_conversation',
  title: 'Start a conversation',
  description: 'Start a consultation thread: AI triage reads the patient\'s concern and asks follow-up questions. Give contextMessage (first person: symptom, duration, severity, associated symptoms, history) and region (ISO 3166-2 code of where the patient physically is now; only US-CA is served). Returns at once; read the first triage reply with wait_for_reply or get_conversation.',
  input: StartConversationInputSchema,
  output: StartConversationOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/consultations' }],
  handler: async (input, ctx) => {
    const { store, account } = await requireAccount(ctx);
    const { care, platform } = carePorts(ctx);
    if (!care.regions.includes(input.region)) throw regionRefusal(input.region, care.regions);
    let patientId = (await store.ensureSelfPatient(account.id)).patientId;
    if (input.patientId !== undefined) {
      const p = await store.getPatient(account.id, input.patientId);
      if (!p) throw new AppError('not_found', 'No patient with this patientId on your account.', { field: 'patientId' });
      patientId = p.patientId;
    }
    const at = ctx.ports.clock.now();
    const id = newId('conv');
    const title = titleFrom(input.contextMessage);
    await ctx.ports.db.transaction(async (tx) => {
      await insertConversation(tx, { id, accountId: account.id, patientId, title, status: 'TRIAGING', region: input.region, requestRegion: input.region, requestSeq: 1, createdAt: at });
      const first = await insertMessage(tx, { conversationId: id, requestSeq: 1, sender: 'user', senderId: account.id, content: input.contextMessage, at });
      await markSeen(tx, id, first.seq);
      await platform.outbox.append(tx, {
        event: 'triage_started', userId: account.id, consultationId: id, status: 'TRIAGING',
        message: 'A care request entered triage review. Wait for the assistant\'s reply and relay it to the patient.',
        data: { previousStatus: null, trigger: 'start' },
      });
      await touch(tx, platform, id, at);
      const job: TriageJobData = { conversationId: id, requestSeq: 1, upToSeq: first.seq };
      await ctx.ports.jobs!.send(TRIAGE_JOB, job, triageJobOptions(care), tx);
    });
    return {
      conversationId: id, status: 'TRIAGING' as const, region: input.region, title,
      agentInstructions: ['Triage has started; the first reply arrives in a moment. Call wait_for_reply to receive it, then relay it to the patient.'],
      nextStep: 'wait_for_reply', nextStepArgs: { conversationId: id },
    };
  },
});

function parseStatuses(raw: string | undefined): Set<ConversationStatus> | null {
  if (raw === undefined || raw.trim() === '') return null;
  const out = new Set<ConversationStatus>();
  for (const s of raw.split(',').map((x) => x.trim().toUpperCase()).filter(Boolean)) {
    if (!(CONVERSATION_STATUSES as readonly string[]).includes(s)) {
      throw new AppError('invalid_request', `status: "${s}" is not a conversation status (${CONVERSATION_STATUSES.join(', ')}).`, { field: 'status', code: 'invalid_value' });
    }
    out.add(s as ConversationStatus);
  }
  return out;
}

export const listConversationsOp = defineOperation({
  name: 'list_conversations',
  title: 'List conversations',
  description: 'The user\'s conversations, newest activity first. `status` (comma-separated) filters the page of `limit` conversations returned, so raise limit to find a rarer status.',
  input: ListConversationsInputSchema,
  output: ListConversationsOutputSchema,
  annotations: READ,
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/consultations' }],
  handler: async (input, ctx) => {
    const { account } = await requireAccount(ctx);
    const statuses = parseStatuses(input.status);
    const { rows, total } = await listConversations(ctx.ports.db, account.id, input.limit);
    const ids = rows.map((r) => r.id);
    const [last, visits] = await Promise.all([lastMessages(ctx.ports.db, ids), visitCounts(ctx.ports.db, ids)]);
    const conversations = rows.filter((r) => !statuses || statuses.has(r.status)).map((r) => {
      const m = last.get(r.id);
      const v = visits.get(r.id);
      return {
        id: r.id, title: r.title, status: r.status, region: r.region,
        hasActiveProvider: v?.active ?? false, pastVisitCount: v?.past ?? 0,
        lastMessage: m ? { type: m.type, preview: m.content.length > 140 ? `${m.content.slice(0, 139)}…` : m.content, fileName: m.fileName ?? null, timestamp: m.timestamp } : null,
        lastActivityAt: r.lastActivityAt.toISOString(), updatedAt: r.updatedAt.toISOString(),
      };
    });
    return { conversations, total };
  },
});

export const getConversation = defineOperation({
  name: 'get_conversation',
  title: 'Get a conversation',
  description: 'A conversation\'s status, triage state, information still needed, payment gate, provider visit and newest messages (older ones counted in omittedOlderMessages; afterMessageId returns only newer ones). Reading it satisfies the read-first gate of send_message.',
  input: GetConversationInputSchema,
  output: ConversationDetailSchema,
  annotations: READ,
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/consultations/:conversationId' }],
  handler: async (input, ctx) => {
    const { account } = await requireAccount(ctx);
    const conv = await requireConversation(ctx.ports.db, account.id, input.conversationId);
    let afterSeq = 0;
    if (input.afterMessageId !== undefined) {
      const m = await findMessage(ctx.ports.db, conv.id, input.afterMessageId);
      if (!m) throw new AppError('invalid_request', 'afterMessageId is not a message of this conversation.', { field: 'afterMessageId', code: 'unknown_message' });
      afterSeq = m.seq;
    }
    return conversationDetail(ctx.ports.db, conv, { limit: input.messageLimit, afterSeq });
  },
});

export const updateRegion = defineOperation({
  name: 'update_conversation_region',
  title: 'Change the region',
  description: 'Set where the patient physically is (ISO 3166-2). It applies to the NEXT provider request and does not re-route one in flight: to re-route, cancel first, update the region, then send a message.',
  input: UpdateRegionInputSchema,
  output: UpdateRegionOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'PATCH', path: '/api/consultations/:conversationId/region' }],
  handler: async (input, ctx) => {
    const { account } = await requireAccount(ctx);
    const { care, platform } = carePorts(ctx);
    if (!care.regions.includes(input.region)) throw regionRefusal(input.region, care.regions);
    await ctx.ports.db.transaction(async (tx) => {
      const conv = await requireConversation(tx, account.id, input.conversationId, true);
      await tx.query('UPDATE conversations SET region = $2 WHERE id = $1', [conv.id, input.region]);
      await touch(tx, platform, conv.id, ctx.ports.clock.now());
    });
    return { success: true, region: input.region, appliesToNextRequest: true };
  },
});

export const cancelConversation = defineOperation({
  name: 'cancel_conversation',
  title: 'Stop the current request',
  description: 'Stop the conversation\'s live request (triage, payment decision, matching or provider visit): it returns to IDLE with its history kept, and a payment hold that was not captured is released. Idempotent on an IDLE conversation. An EMERGENCY conversation cannot be changed.',
  input: CancelConversationInputSchema,
  output: CancelConversationOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'DELETE', path: '/api/consultations/:conversationId' }],
  handler: async (input, ctx) => {
    const { account } = await requireAccount(ctx);
    const { care, platform } = carePorts(ctx);
    const out = await ctx.ports.db.transaction(async (tx) => {
      const conv = await requireConversation(tx, account.id, input.conversationId, true);
      const previousStatus = conv.status;
      if (conv.status === 'IDLE') {
        return { after: null, res: { success: true, conversationId: conv.id, status: 'IDLE' as const, previousStatus, stopped: false, note: 'Nothing was in progress; the conversation is IDLE.' } };
      }
      if (!isLive(conv.status)) {
        throw new AppError('conversation_emergency', 'This conversation was flagged as an emergency and cannot be changed. The patient should call 911 now (988 for a mental-health crisis).', { extra: { status: conv.status } });
      }
      const at = ctx.ports.clock.now();
      const moved = await applyTransition(tx, platform, conv, 'cancel', {
        at, set: { payment_gate: null },
        message: 'The request was stopped; the conversation is IDLE and its history is kept.',
      });
      // A provider visit in progress is closed with the request.
      await tx.query('UPDATE conversation_visits SET closed_at = $2 WHERE conversation_id = $1 AND closed_at IS NULL', [conv.id, at.toISOString()]);
      // The request's visit hold, if approved, is released (engine/visits: a queued job, then at once
      // after commit); a captured one stays captured.
      const after = care.onRequestStopped ? await care.onRequestStopped(tx, conv) : null;
      return {
        after,
        res: {
          success: true, conversationId: conv.id, status: moved.status, previousStatus, stopped: true,
          note: `The ${previousStatus} request was stopped; the conversation is IDLE with its history kept. Send a message to start a new request.`,
        },
      };
    });
    await out.after?.();
    return out.res;
  },
});

export const sendMessage = defineOperation({
  name: 'send_message',
  title: 'Send a message',
  description: 'Send the patient\'s message(s), in the first person, and (by default) wait up to about 55 s for the reply, returned inline. Read first: pass lastSeenMessageId (the newest message id you have seen) or call get_conversation; a stale send is refused with READ_REQUIRED and the latest state. On a wait timeout the message is already sent (stillWaiting): call wait_for_reply, never re-send. Relay userMessage to the patient as written.',
  input: SendMessageInputSchema,
  output: ReplyOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/consultations/:conversationId/messages' }],
  handler: sendMessages,
});

export const waitForReplyOp = defineOperation({
  name: 'wait_for_reply',
  title: 'Wait for the next reply',
  description: 'Wait (up to about 55 s) for the next reply or status change in a conversation without sending anything. Returns at once when a reply newer than lastSeenMessageId (default: the newest you were shown) already exists; otherwise stillWaiting on timeout, and you may call it again.',
  input: WaitForReplyInputSchema,
  output: ReplyOutputSchema,
  annotations: READ,
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/consultations/:conversationId/wait' }],
  handler: waitForReply,
});

/** Parses job data written by this area (a malformed job is dropped, not retried forever). */
export const TriageJobDataSchema = z.object({ conversationId: z.string(), requestSeq: z.number().int(), upToSeq: z.number().int() });

export const consultationOperations: AnyOperation[] = [
  startConversation, listConversationsOp, getConversation, updateRegion, cancelConversation, sendMessage, waitForReplyOp,
];
