/**
 * POST /api/consultations/{id}/messages and wait_for_reply (service-spec.md, Conversations).
 * The send is one transaction: the read-first gate, the status rule, the messages, the status move
 * with its event, and the triage job. The wait that follows never re-sends: whatever happens to
 * it, the messages were committed exactly once.
 */
import { z } from 'zod';
import type { HandlerContext } from '../core/context.ts';
import { AppError } from '../core/errors.ts';
import { requireAccount } from '../profile/onboarding.ts';
import type { ConversationStatus } from './consultation-status.ts';
import { TRIAGE_JOB, triageJobOptions, type ConsultationPorts, type TriageJobData } from './consultation.ports.ts';
import type { ReplyOutput, SendMessageInputSchema, WaitForReplyInputSchema } from './consultation.schema.ts';
import {
  applyTransition, findMessage, insertMessage, latestMessage, markSeen, publicMessage, requireConversation, touch,
  type ConversationRow, type MessageRow, type PlatformWrite,
} from './consultation-store.ts';
import { EMERGENCY_ADVICE, agentInstructionsFor, conversationDetail } from './consultation-view.ts';
import { openWaiter, type WaitOutcome } from './reply-wait.ts';

type SendInput = z.output<typeof SendMessageInputSchema>;
type WaitInput = z.output<typeof WaitForReplyInputSchema>;

/** The care platform a handler needs; absent on the pricing-only host. */
export function carePorts(ctx: HandlerContext): { care: ConsultationPorts; platform: PlatformWrite } {
  const { consultations: care, outbox, bus, jobs } = ctx.ports;
  if (!care || !outbox || !bus || !jobs) throw new AppError('not_ready', 'Care is not served by this process.');
  return { care, platform: { outbox, bus } };
}

/** The body of a refused send (READ_REQUIRED, PAYMENT_REQUIRED, emergency): the latest state inline. */
async function refusal(ctx: HandlerContext, conv: ConversationRow, status: string, userMessage: string | undefined, instructions: string[], extra: Record<string, unknown> = {}) {
  const conversation = await conversationDetail(ctx.ports.db, conv);
  const latest = conversation.messages.at(-1)?.id ?? null;
  return {
    sent: false, messagesSent: 0, status, replies: [], stillWaiting: false, connected: false, paymentRequired: conv.status === 'PAYMENT_REQUIRED',
    latestMessageId: latest, conversation, agentInstructions: instructions,
    ...(userMessage ? { userMessage } : {}),
    ...(conv.status === 'PAYMENT_REQUIRED' ? { paymentGate: conversation.paymentGate } : {}),
    ...extra,
  };
}

/** Builds the send / wait response from the conversation after the wait. */
async function replyResponse(ctx: HandlerContext, out: WaitOutcome, sentCount: number, statusAfterSend: ConversationStatus): Promise<ReplyOutput> {
  const conv = out.conv;
  const conversation = await conversationDetail(ctx.ports.db, conv);
  const replies = out.replies.map(publicMessage);
  const latestMessageId = conversation.messages.at(-1)?.id ?? null;
  const statusChanged = conv.status !== statusAfterSend ? conv.status : undefined;
  const paymentRequired = conv.status === 'PAYMENT_REQUIRED';
  const stillWaiting = out.timedOut && replies.length === 0 && !statusChanged;
  const lastReply = replies.at(-1);
  const res: ReplyOutput = {
    sent: sentCount > 0,
    messagesSent: sentCount,
    status: conv.status,
    replies,
    stillWaiting,
    connected: conv.status === 'WITH_PROVIDER' && statusChanged === 'WITH_PROVIDER',
    paymentRequired,
    latestMessageId,
    conversation,
    agentInstructions: agentInstructionsFor(conv.status, stillWaiting),
  };
  if (replies[0]) res.reply = replies[0];
  if (statusChanged) res.statusChanged = statusChanged;
  if (paymentRequired) res.paymentGate = conversation.paymentGate;
  if (conv.status === 'EMERGENCY') res.userMessage = lastReply?.content ?? EMERGENCY_ADVICE;
  else if (lastReply) res.userMessage = replies.map((r) => r.content).join('\n\n');
  if (stillWaiting) {
    res.note = 'The message was sent; no reply arrived within the wait. It will not be re-sent.';
    res.nextStep = 'wait_for_reply';
    res.nextStepArgs = { conversationId: conv.id, lastSeenMessageId: latestMessageId };
  } else if (paymentRequired) {
    res.nextStep = 'get_payment_link';
    res.nextStepArgs = { conversationId: conv.id };
  } else if (conv.status === 'TRIAGING' || conv.status === 'WITH_PROVIDER') {
    res.nextStep = 'send_message';
    res.nextStepArgs = { conversationId: conv.id, lastSeenMessageId: latestMessageId };
  } else if (conv.status === 'MATCHING') {
    res.nextStep = 'wait_for_reply';
    res.nextStepArgs = { conversationId: conv.id, lastSeenMessageId: latestMessageId };
  }
  return res;
}

/** Sends the patient's messages; waits for the reply unless `waitForReply` is false. */
export async function sendMessages(input: SendInput, ctx: HandlerContext): Promise<ReplyOutput> {
  const { account } = await requireAccount(ctx);
  const { care, platform } = carePorts(ctx);
  const texts = input.messages ?? [input.text!];
  // Subscribe before the write so that a reply committed right after it still wakes the wait.
  const waiter = input.waitForReply ? await openWaiter(ctx.ports.db, platform.bus, input.conversationId) : null;
  try {
    const sent = await ctx.ports.db.transaction(async (tx) => {
      let conv = await requireConversation(tx, account.id, input.conversationId, true);
      const latest = await latestMessage(tx, conv.id);
      // The read-first gate: the caller must have the newest message in hand.
      let seenSeq = conv.lastSeenSeq;
      if (input.lastSeenMessageId !== undefined) {
        const seen = await findMessage(tx, conv.id, input.lastSeenMessageId);
        if (!seen) throw new AppError('invalid_request', 'lastSeenMessageId is not a message of this conversation.', { field: 'lastSeenMessageId', code: 'unknown_message' });
        seenSeq = seen.seq;
      }
      if (latest && latest.seq > seenSeq) return { refused: 'READ_REQUIRED' as const, conv };
      if (conv.status === 'EMERGENCY') return { refused: 'EMERGENCY' as const, conv };
      if (conv.status === 'PAYMENT_REQUIRED') return { refused: 'PAYMENT_REQUIRED' as const, conv };
      const at = ctx.ports.clock.now();
      if (conv.status === 'IDLE') {
        conv = await applyTransition(tx, platform, conv, 'patient_message', {
          at, set: { request_seq: conv.requestSeq + 1, request_region: conv.region, triage: null, information_need: [], information_need_as_of: null, payment_gate: null },
          message: 'A new request entered triage review. Fetch the conversation for the assistant\'s reply.',
        });
      }
      const rows: MessageRow[] = [];
      for (const text of texts) {
        rows.push(await insertMessage(tx, { conversationId: conv.id, requestSeq: conv.requestSeq, sender: 'user', senderId: account.id, content: text, at }));
      }
      const last = rows.at(-1)!;
      await markSeen(tx, conv.id, last.seq);
      await touch(tx, platform, conv.id, at, { notify: false });
      if (conv.status === 'TRIAGING') {
        const job: TriageJobData = { conversationId: conv.id, requestSeq: conv.requestSeq, upToSeq: last.seq };
        await ctx.ports.jobs!.send(TRIAGE_JOB, job, triageJobOptions(care), tx);
      }
      return { refused: null, conv, lastSeq: last.seq, count: rows.length };
    });

    if (sent.refused === 'READ_REQUIRED') {
      const body = await refusal(ctx, sent.conv, 'READ_REQUIRED', undefined, [
        'A newer message arrived that the patient has not seen. Relay the newest messages in conversation.messages first, then retry with lastSeenMessageId = latestMessageId.',
      ]);
      throw new AppError('READ_REQUIRED', 'Read the newest message before sending: retry with lastSeenMessageId = latestMessageId.', { extra: body });
    }
    if (sent.refused === 'EMERGENCY') {
      const body = await refusal(ctx, sent.conv, 'EMERGENCY', EMERGENCY_ADVICE, ['Relay userMessage to the patient word for word, now.']);
      throw new AppError('conversation_emergency', EMERGENCY_ADVICE, { extra: body });
    }
    if (sent.refused === 'PAYMENT_REQUIRED') {
      const body = await refusal(ctx, sent.conv, 'PAYMENT_REQUIRED', undefined, [
        'Triage is complete: the patient must decide about a visit first. Get the payment link (POST /api/consultations/{id}/payment) for the patient to approve, or cancel the request (DELETE /api/consultations/{id}) to return to IDLE and send again.',
      ], { nextStep: 'get_payment_link', nextStepArgs: { conversationId: sent.conv.id } });
      throw new AppError('PAYMENT_REQUIRED', 'The conversation is waiting for the patient\'s payment decision; the message was not sent.', { extra: body });
    }
    const out: WaitOutcome = waiter
      ? await waiter.wait(sent.lastSeq, sent.conv.status, care.replyWaitMs)
      : { conv: sent.conv, replies: [], newer: [], timedOut: false };
    const res = await replyResponse(ctx, out, sent.count, sent.conv.status);
    if (!waiter) {
      res.note = 'Sent without waiting. Fetch the reply with wait_for_reply or GET /api/consultations/{id}.';
      res.nextStep = 'wait_for_reply';
      res.nextStepArgs = { conversationId: sent.conv.id, lastSeenMessageId: res.latestMessageId };
    }
    return res;
  } finally {
    await waiter?.close();
  }
}

/** Waits for the next reply without sending (MCP wait_for_reply). */
export async function waitForReply(input: WaitInput, ctx: HandlerContext): Promise<ReplyOutput> {
  const { account } = await requireAccount(ctx);
  const { care, platform } = carePorts(ctx);
  const waiter = await openWaiter(ctx.ports.db, platform.bus, input.conversationId);
  try {
    const conv = await requireConversation(ctx.ports.db, account.id, input.conversationId);
    let afterSeq = conv.lastSeenSeq;
    if (input.lastSeenMessageId !== undefined) {
      const seen = await findMessage(ctx.ports.db, conv.id, input.lastSeenMessageId);
      if (!seen) throw new AppError('invalid_request', 'lastSeenMessageId is not a message of this conversation.', { field: 'lastSeenMessageId', code: 'unknown_message' });
      afterSeq = seen.seq;
    }
    const out = await waiter.wait(afterSeq, conv.status, Math.min(input.timeoutSeconds * 1000, care.replyWaitMs));
    return await replyResponse(ctx, out, 0, conv.status);
  } finally {
    await waiter.close();
  }
}
