/**
 * What a caller sees of a conversation: the detail object (service-spec.md, Conversation detail),
 * the payment gate, and the words an agent relays or follows (`nextSteps`, `agentInstructions`,
 * `nextStep`). Built from stored rows only; no I/O besides the reads named here.
 */
import type { Db } from '../ports/db.ts';
import { STATUS_DESCRIPTION, type ConversationStatus } from './consultation-status.ts';
import type { ConversationDetail, PaymentGate } from './consultation.schema.ts';
import { listVisits, markSeen, publicMessage, recentMessages, type ConversationRow, type MessageRow } from './consultation-store.ts';

/** The emergency instruction every emergency refusal repeats (the triage reply holds the specifics). */
export const EMERGENCY_ADVICE = 'This may be a medical emergency. Call 911 now, or go to the nearest emergency department. '
  + 'If you are thinking about suicide or self-harm, call or text 988 (Suicide & Crisis Lifeline). Do not wait for an online visit.';

export const NO_GATE: PaymentGate = { consultationSummary: '', ctaText: '', gateType: 'NONE', isLoading: false, paymentType: 'pay_per_use' };

/** The open gate of a conversation whose triage completed. */
export function openGate(summary: string | null): PaymentGate {
  return {
    consultationSummary: summary ?? '',
    ctaText: 'Approve a temporary hold to connect with a licensed provider. Nothing is charged unless a provider joins.',
    gateType: 'VISIT_HOLD',
    // The rules engine writes the summary with the reply; an LLM summary may lag behind.
    isLoading: summary === null,
    paymentType: 'pay_per_use',
  };
}

/** What the caller can do next, in plain words (the detail's `nextSteps`). */
export function nextStepsFor(status: ConversationStatus): string[] {
  switch (status) {
    case 'IDLE':
      return ['Send a message to start a new request (triage runs again).', 'Change the region with PATCH /api/consultations/{id}/region before the next request if the patient has moved.'];
    case 'TRIAGING':
      return ['Relay the assistant\'s questions to the patient and send their answers in the first person (send_message).', 'Wait for the next reply with wait_for_reply.'];
    case 'PAYMENT_REQUIRED':
      return ['Show the patient the consultation summary and ask whether they want a visit with a licensed provider.', 'If yes, get the payment link (POST /api/consultations/{id}/payment) and hand it to the patient; never approve it yourself.', 'If no, cancel the request (DELETE /api/consultations/{id}); the conversation returns to IDLE.'];
    case 'MATCHING':
      return ['A licensed provider is being matched; wait with wait_for_reply.', 'Cancel with DELETE /api/consultations/{id} to stop the request (the hold is released).'];
    case 'WITH_PROVIDER':
      return ['Relay the provider\'s messages to the patient and send the patient\'s answers (send_message).', 'Wait for the provider with wait_for_reply; replies can take a while.'];
    case 'EMERGENCY':
      return ['Tell the patient to call 911 now (988 for a mental-health crisis) or go to the nearest emergency department.', 'This conversation cannot continue; start a new one only for a different, non-emergency concern.'];
  }
}

/** Instructions to the agent for a status (the send/wait response's `agentInstructions`). */
export function agentInstructionsFor(status: ConversationStatus, stillWaiting: boolean): string[] {
  const out: string[] = [];
  if (status === 'EMERGENCY') out.push('Relay userMessage to the patient word for word, first, before anything else.');
  else out.push('Relay userMessage to the patient as written; do not add a diagnosis or change its advice.');
  if (stillWaiting) out.push('No reply yet: the message was sent. Call wait_for_reply (do not send the message again).');
  if (status === 'PAYMENT_REQUIRED') out.push('The patient must approve the visit payment themselves on the hosted page; the service never charges without that approval.');
  if (status === 'TRIAGING' && !stillWaiting) out.push('Ask the patient the questions in informationNeed (red-flag questions first) and send the answers with lastSeenMessageId = latestMessageId.');
  return out;
}

/** The detail object, with the newest `limit` messages (after `afterSeq` when given). Marks them seen. */
export async function conversationDetail(db: Db, conv: ConversationRow, opts: { limit?: number; afterSeq?: number } = {}): Promise<ConversationDetail> {
  const [{ messages, omitted }, visits] = await Promise.all([
    recentMessages(db, conv.id, opts.limit ?? 50, opts.afterSeq ?? 0),
    listVisits(db, conv.id),
  ]);
  const newest = messages.at(-1);
  if (newest && newest.seq > conv.lastSeenSeq) await markSeen(db, conv.id, newest.seq);
  const open = visits.find((v) => v.closedAt === null);
  const lastAsked = new Set(messages.filter((m) => m.sender === 'assistant').at(-1)?.meta.asked ?? []);
  return {
    conversationId: conv.id,
    title: conv.title,
    patientId: conv.patientId,
    status: conv.status,
    statusDescription: STATUS_DESCRIPTION[conv.status],
    region: conv.region,
    providerVisit: { active: Boolean(open), providerName: open?.providerName ?? null, consultId: open?.id ?? null },
    pastVisits: visits.filter((v) => v.closedAt !== null).map((v) => ({ consultId: v.id, closedAt: v.closedAt!.toISOString(), hasNotes: v.hasNotes })),
    messages: messages.map(publicMessage),
    omittedOlderMessages: omitted,
    lastActivityAt: conv.lastActivityAt.toISOString(),
    updatedAt: conv.updatedAt.toISOString(),
    informationNeed: conv.status === 'TRIAGING'
      ? conv.informationNeed.map(({ key, prompt, why, priority, redFlagGate }) => ({ key, asked: lastAsked.has(key), prompt, why, priority, redFlagGate }))
      : [],
    informationNeedAsOfMessageId: conv.informationNeedAsOf,
    paymentGate: conv.status === 'PAYMENT_REQUIRED' && conv.paymentGate ? conv.paymentGate : NO_GATE,
    nextSteps: nextStepsFor(conv.status),
    triage: conv.triage ? { acuity: conv.triage.acuity, redFlags: conv.triage.redFlags, summary: conv.triage.summary } : null,
  };
}

/** A short title from the opening narrative: its first sentence, at most 80 characters. */
export function titleFrom(text: string): string {
  const first = text.replace(/\s+/g, ' ').trim().split(/(?<=[.!?])\s/)[0] ?? text;
  return first.length <= 80 ? first : `${first.slice(0, 77).replace(/\s+\S*$/, '')}…`;
}

/** The replies among `msgs`: what the caller waits for (anything not written by the patient's side). */
export function repliesOf(msgs: MessageRow[]): MessageRow[] {
  return msgs.filter((m) => m.sender !== 'user');
}
