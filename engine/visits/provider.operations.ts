/**
 * The provider API (issue 35, item 4), with a provider's bearer token: a patient's token gets 403
 * `forbidden`. Clinicians accept, message, write notes and end visits; the care team may read the
 * queue. REST only (mcp: false): these are not tools for a patient's agent.
 */
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import { AppError } from '../core/errors.ts';
import type { HandlerContext } from '../core/context.ts';
import type { Db } from '../ports/db.ts';
import {
  applyTransition, insertMessage, loadConversation, newId, publicMessage, recentMessages, touch, type ConversationRow,
} from '../consultations/consultation-store.ts';
import { carePorts } from '../consultations/send-message.ts';
import { requireProvider, type Provider } from './provider-store.ts';
import { enqueueHoldJob, settleSoon, visitHoldId } from './visit-holds.ts';
import {
  AcceptOutputSchema, ConversationRefSchema, EndOutputSchema, NoInputSchema, NoteInputSchema, NoteOutputSchema, ProviderMessageInputSchema,
  ProviderMessageOutputSchema, ProviderVisitSchema, QueueSchema,
} from './visits.schema.ts';

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

interface OpenVisit { id: string; providerId: string; providerName: string; startedAt: Date; hasNotes: boolean }

async function openVisit(db: Db, conversationId: string): Promise<OpenVisit | null> {
  const { rows } = await db.query(
    'SELECT id, provider_id, provider_name, started_at, has_notes FROM conversation_visits WHERE conversation_id = $1 AND closed_at IS NULL', [conversationId]);
  const r = rows[0];
  return r ? { id: r.id as string, providerId: r.provider_id as string, providerName: r.provider_name as string, startedAt: new Date(r.started_at as string), hasNotes: Boolean(r.has_notes) } : null;
}

function notFound(): AppError {
  return new AppError('not_found', 'No conversation with this id.', { field: 'conversationId' });
}

/**
 * The conversation locked in `tx`, with the caller's open visit on it (403 when it is another's, 409 when none).
 * Also the rule for other areas' visit actions (engine/prescriptions: prescribing).
 */
export async function lockOwnVisit(tx: Db, provider: Provider, conversationId: string): Promise<{ conv: ConversationRow; visit: OpenVisit }> {
  const conv = await loadConversation(tx, conversationId, true);
  if (!conv) throw notFound();
  const visit = conv.status === 'WITH_PROVIDER' ? await openVisit(tx, conv.id) : null;
  if (!visit) throw new AppError('conflict', `No visit is open on this conversation (it is ${conv.status}).`, { code: 'no_open_visit', extra: { status: conv.status } });
  if (visit.providerId !== provider.accountId) throw new AppError('forbidden', 'Another provider holds this visit.', { code: 'not_your_visit' });
  return { conv, visit };
}

/**
 * The conversation, for a provider it was offered to or who saw the patient (403 for a patient's
 * token; 404 otherwise, so nobody probes). Also the rule for other areas' visit reads
 * (engine/prescriptions: a visit's orders).
 */
export async function readableConversation(ctx: HandlerContext, conversationId: string): Promise<ConversationRow> {
  const p = await requireProvider(ctx);
  const conv = await loadConversation(ctx.ports.db, conversationId);
  if (!conv) throw notFound();
  const offered = (await ctx.ports.db.query('SELECT 1 FROM visit_offers WHERE conversation_id = $1 AND provider_id = $2 LIMIT 1', [conv.id, p.accountId])).rows.length > 0;
  const past = (await ctx.ports.db.query('SELECT 1 FROM conversation_visits WHERE conversation_id = $1 AND provider_id = $2 LIMIT 1', [conv.id, p.accountId])).rows.length > 0;
  if (!offered && !past) throw notFound();
  return conv;
}

export const providerQueue = defineOperation({
  name: 'provider_queue',
  title: 'Provider queue',
  description: 'Requests waiting for a clinician (offered to you by matching, least-loaded clinicians ranked first) and your open visits.',
  input: NoInputSchema, output: QueueSchema, annotations: READ, auth: 'required', mcp: false,
  rest: [{ method: 'GET', path: '/api/provider/queue' }],
  handler: async (_input, ctx) => {
    const p = await requireProvider(ctx);
    const [waiting, active] = await Promise.all([
      ctx.ports.db.query(
        `SELECT c.id, c.title, coalesce(c.request_region, c.region) AS region, c.triage, o.rank, o.offered_at FROM visit_offers o
         JOIN conversations c ON c.id = o.conversation_id AND c.request_seq = o.request_seq AND c.status = 'MATCHING'
         WHERE o.provider_id = $1 ORDER BY o.offered_at, c.id LIMIT 100`, [p.accountId]),
      ctx.ports.db.query(
        `SELECT v.conversation_id, v.id, c.title, v.started_at FROM conversation_visits v JOIN conversations c ON c.id = v.conversation_id
         WHERE v.provider_id = $1 AND v.closed_at IS NULL ORDER BY v.started_at LIMIT 100`, [p.accountId]),
    ]);
    return {
      provider: { providerId: p.accountId, name: p.displayName, role: p.role, regions: p.regions },
      waiting: waiting.rows.map((r) => {
        const t = r.triage as { acuity: 'emergency' | 'urgent' | 'routine' | 'self_care'; redFlags: string[]; summary: string | null } | null;
        return {
          conversationId: r.id as string, title: r.title as string, region: r.region as string, rank: Number(r.rank),
          offeredAt: new Date(r.offered_at as string).toISOString(), triage: t ? { acuity: t.acuity, redFlags: t.redFlags, summary: t.summary } : null,
        };
      }),
      active: active.rows.map((r) => ({
        conversationId: r.conversation_id as string, consultId: r.id as string, title: r.title as string, startedAt: new Date(r.started_at as string).toISOString(),
      })),
    };
  },
});

export const providerGetVisit = defineOperation({
  name: 'provider_get_visit',
  title: 'A conversation as the provider sees it',
  description: 'The triage summary, the open visit and the newest messages of a conversation offered to you or in your visit.',
  input: ConversationRefSchema, output: ProviderVisitSchema, annotations: READ, auth: 'required', mcp: false,
  rest: [{ method: 'GET', path: '/api/provider/visits/:conversationId' }],
  handler: async (input, ctx) => {
    const conv = await readableConversation(ctx, input.conversationId);
    const visit = await openVisit(ctx.ports.db, conv.id);
    const { messages } = await recentMessages(ctx.ports.db, conv.id, 100);
    return {
      conversationId: conv.id, title: conv.title, status: conv.status, region: conv.requestRegion ?? conv.region,
      triage: conv.triage ? { acuity: conv.triage.acuity, redFlags: conv.triage.redFlags, summary: conv.triage.summary } : null,
      visit: visit ? { consultId: visit.id, providerId: visit.providerId, providerName: visit.providerName, startedAt: visit.startedAt.toISOString(), hasNotes: visit.hasNotes } : null,
      messages: messages.map(publicMessage),
    };
  },
});

export const acceptVisit = defineOperation({
  name: 'provider_accept_visit',
  title: 'Accept a visit',
  description: 'Join a MATCHING request licensed in one of your regions: the conversation moves to WITH_PROVIDER (event provider_joined) and the visit hold is captured. First come, first served: a request already accepted answers 409 conflict (code already_accepted).',
  input: ConversationRefSchema, output: AcceptOutputSchema, annotations: WRITE, auth: 'required', mcp: false,
  rest: [{ method: 'POST', path: '/api/provider/visits/:conversationId/accept' }],
  handler: async (input, ctx) => {
    const p = await requireProvider(ctx, ['clinician']);
    const { platform } = carePorts(ctx);
    const at = ctx.ports.clock.now();
    const out = await ctx.ports.db.transaction(async (tx) => {
      // The row lock serialises concurrent accepts: the second one sees WITH_PROVIDER.
      const conv = await loadConversation(tx, input.conversationId, true);
      if (!conv) throw notFound();
      if (conv.status === 'WITH_PROVIDER') throw new AppError('conflict', 'Another clinician already accepted this visit.', { code: 'already_accepted', extra: { status: conv.status } });
      if (conv.status !== 'MATCHING') throw new AppError('conflict', `The request is not waiting for a provider (it is ${conv.status}).`, { code: 'not_matching', extra: { status: conv.status } });
      const region = conv.requestRegion ?? conv.region;
      if (!p.regions.includes(region)) throw new AppError('forbidden', `You are not licensed in ${region}.`, { code: 'not_licensed' });
      const consultId = newId('visit');
      await tx.query(
        'INSERT INTO conversation_visits (id, conversation_id, request_seq, provider_id, provider_name, started_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [consultId, conv.id, conv.requestSeq, p.accountId, p.displayName, at.toISOString()]);
      await insertMessage(tx, { conversationId: conv.id, requestSeq: conv.requestSeq, sender: 'system', senderId: 'carebridge', content: `${p.displayName} joined the visit.`, at });
      await applyTransition(tx, platform, conv, 'provider_joined', {
        at, message: `${p.displayName} joined the visit; messaging is live. Fetch the conversation and relay the provider's messages to the patient.`,
      });
      const holdId = await visitHoldId(tx, conv.id, conv.requestSeq);
      if (holdId) await enqueueHoldJob(tx, ctx.ports.jobs!, { holdId, action: 'capture' });
      return { conv, consultId, holdId };
    });
    // Capture after commit (network); the queued job retries it if this fails.
    await settleSoon(ctx.ports.payments?.processor, out.holdId ? { holdId: out.holdId, action: 'capture' } : null, ctx.log);
    const hold = out.holdId ? await ctx.ports.payments?.processor.getHold(out.holdId) : null;
    return { success: true, conversationId: out.conv.id, consultId: out.consultId, status: 'WITH_PROVIDER' as const, holdStatus: hold?.status ?? null };
  },
});

export const providerMessage = defineOperation({
  name: 'provider_send_message',
  title: 'Message the patient',
  description: 'Send a message to the patient in your open visit (event provider_message; wakes the patient agent\'s wait_for_reply).',
  input: ProviderMessageInputSchema, output: ProviderMessageOutputSchema, annotations: WRITE, auth: 'required', mcp: false,
  rest: [{ method: 'POST', path: '/api/provider/visits/:conversationId/messages' }],
  handler: async (input, ctx) => {
    const p = await requireProvider(ctx, ['clinician']);
    const { platform } = carePorts(ctx);
    const at = ctx.ports.clock.now();
    return ctx.ports.db.transaction(async (tx) => {
      const { conv } = await lockOwnVisit(tx, p, input.conversationId);
      const m = await insertMessage(tx, { conversationId: conv.id, requestSeq: conv.requestSeq, sender: 'provider', senderId: p.accountId, content: input.text, at });
      // service-spec.md, Events: payloads never carry message content.
      await platform.outbox.append(tx, {
        event: 'provider_message', userId: conv.accountId, consultationId: conv.id,
        message: `${p.displayName} sent a message. Fetch the conversation and relay it to the patient.`, data: { messageId: m.id },
      });
      await touch(tx, platform, conv.id, at);
      return { sent: true, messageId: m.id, timestamp: m.timestamp };
    });
  },
});

export const providerNotes = defineOperation({
  name: 'provider_write_notes',
  title: 'Write the visit note',
  description: 'Write (or rewrite) the note of your open visit: chiefComplaint, assessment, plan, summary. The patient reads it with GET /api/consultations/{id}/notes once the visit ends.',
  input: NoteInputSchema, output: NoteOutputSchema, annotations: { ...WRITE, idempotentHint: true }, auth: 'required', mcp: false,
  rest: [{ method: 'POST', path: '/api/provider/visits/:conversationId/notes' }],
  handler: async (input, ctx) => {
    const p = await requireProvider(ctx, ['clinician']);
    return ctx.ports.db.transaction(async (tx) => {
      const { conv, visit } = await lockOwnVisit(tx, p, input.conversationId);
      await tx.query(
        `INSERT INTO visit_notes (visit_id, conversation_id, provider_id, chief_complaint, assessment, plan, summary, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (visit_id) DO UPDATE SET chief_complaint = $4, assessment = $5, plan = $6, summary = $7, updated_at = $8`,
        [visit.id, conv.id, p.accountId, input.chiefComplaint, input.assessment, input.plan, input.summary, ctx.ports.clock.now().toISOString()]);
      await tx.query('UPDATE conversation_visits SET has_notes = true WHERE id = $1', [visit.id]);
      const note = { chiefComplaint: input.chiefComplaint, assessment: input.assessment, plan: input.plan, summary: input.summary };
      return { success: true, consultId: visit.id, hasNotes: true, note };
    });
  },
});

export const endVisit = defineOperation({
  name: 'provider_end_visit',
  title: 'End the visit',
  description: 'Wrap up your open visit: the conversation returns to IDLE with the visit in pastVisits (hasNotes tells whether you wrote a note); event visit_ended.',
  input: ConversationRefSchema, output: EndOutputSchema, annotations: { ...WRITE, destructiveHint: true }, auth: 'required', mcp: false,
  rest: [{ method: 'POST', path: '/api/provider/visits/:conversationId/end' }],
  handler: async (input, ctx) => endOwnVisit(ctx, input.conversationId),
});

async function endOwnVisit(ctx: HandlerContext, conversationId: string) {
  const p = await requireProvider(ctx, ['clinician']);
  const { platform } = carePorts(ctx);
  const at = ctx.ports.clock.now();
  return ctx.ports.db.transaction(async (tx) => {
    const { conv, visit } = await lockOwnVisit(tx, p, conversationId);
    await tx.query('UPDATE conversation_visits SET closed_at = $2 WHERE id = $1', [visit.id, at.toISOString()]);
    const moved = await applyTransition(tx, platform, conv, 'visit_ended', {
      at, message: visit.hasNotes
        ? 'The provider visit ended and a visit note is available: fetch GET /api/consultations/{id}/notes and share it with the patient.'
        : 'The provider visit ended; the conversation stays open (IDLE).',
    });
    return { success: true, conversationId: conv.id, consultId: visit.id, status: moved.status, hasNotes: visit.hasNotes };
  });
}

export const providerOperations: AnyOperation[] = [providerQueue, providerGetVisit, acceptVisit, providerMessage, providerNotes, endVisit];
