/**
 * The visit hold's life on the conversation side (issue 35, item 2): approval moves the request to
 * MATCHING inside the transaction that records it; capture when a clinician joins; release on
 * cancel, dismissal, matching time-out, or an approval that arrives after the gate closed.
 * Capture and release call the processor (Stripe is network), so they never run inside a
 * transaction: the transaction enqueues a durable hold job, and the caller may also run it at once
 * after commit (`settleHold`); both paths are idempotent, so a double run is harmless.
 */
import type { Logger } from 'pino';
import type { Ports } from '../core/context.ts';
import type { Db } from '../ports/db.ts';
import type { JobQueue } from '../ports/jobs.ts';
import type { Hold, PaymentProcessor, PurposeHandlers } from '../payments/payment-processor.ts';
import { applyTransition, loadConversation, type PlatformWrite } from '../consultations/consultation-store.ts';
import { HOLD_JOB, HOLD_JOB_OPTIONS, MATCH_JOB, MATCH_JOB_EXPIRE_SECONDS, type HoldJobData, type MatchJobData } from './visits.ports.ts';

/** The hold that pays for (conversation, request), or null. */
export async function visitHoldId(db: Db, conversationId: string, requestSeq: number): Promise<string | null> {
  const { rows } = await db.query<{ hold_id: string }>('SELECT hold_id FROM visit_holds WHERE conversation_id = $1 AND request_seq = $2', [conversationId, requestSeq]);
  return rows[0]?.hold_id ?? null;
}

/** Enqueues a capture or release of `holdId` inside `tx` (it happens iff `tx` commits). */
export async function enqueueHoldJob(tx: Db, jobs: JobQueue, data: HoldJobData): Promise<void> {
  await jobs.send(HOLD_JOB, data, { ...HOLD_JOB_OPTIONS, singletonKey: `${data.action}:${data.holdId}` }, tx);
}

/** Runs a hold job now (after commit). A conflict (already captured, lapsed, released) is the end state. */
export async function settleHold(processor: PaymentProcessor, data: HoldJobData): Promise<Hold | null> {
  const hold = await processor.getHold(data.holdId);
  if (!hold) return null;
  if (data.action === 'capture') {
    if (hold.status !== 'authorized' && hold.status !== 'captured') return hold;
    return processor.capture(data.holdId);
  }
  if (hold.status !== 'authorized') return hold;
  return processor.release(data.holdId);
}

/** Best-effort immediate settle after commit; the queued job is the durable path. */
export async function settleSoon(processor: PaymentProcessor | undefined, data: HoldJobData | null, log: Logger): Promise<void> {
  if (!processor || !data) return;
  try {
    await settleHold(processor, data);
  } catch (err) {
    log.warn({ err: (err as Error).message, holdId: data.holdId, action: data.action }, 'hold settle failed; the queued job retries');
  }
}

/**
 * The hook DELETE calls inside its transaction (ConsultationPorts.onRequestStopped): queues the
 * release of the stopped request's hold and returns the immediate release to run after commit.
 * A link paid after this is released by onAuthorized below.
 */
export function visitRequestStopped(ports: Ports, log: Logger) {
  return async (tx: Db, conv: { id: string; requestSeq: number }): Promise<(() => Promise<void>) | null> => {
    const holdId = await visitHoldId(tx, conv.id, conv.requestSeq);
    if (!holdId || !ports.jobs) return null;
    await enqueueHoldJob(tx, ports.jobs, { holdId, action: 'release' });
    return () => settleSoon(ports.payments?.processor, { holdId, action: 'release' }, log);
  };
}

/**
 * The `visit` purpose handlers (registered in api/app.ts). onAuthorized runs inside the
 * transaction that records the approval: a conversation still waiting for it moves to MATCHING
 * (event provider_matching) and its matching job is queued; an approval for a gate that was
 * dismissed or cancelled meanwhile is kept as authorised and released by a job (the patient
 * approved, so the processor's record stays true, but nothing is charged).
 */
export function visitPurposeHandlers(ports: Ports): PurposeHandlers {
  return {
    async onAuthorized(tx: Db, hold: Hold) {
      const { jobs, outbox, bus } = ports;
      if (!jobs || !outbox || !bus) throw new Error('visit approvals need the care platform');
      const platform: PlatformWrite = { outbox, bus };
      const conv = await loadConversation(tx, hold.purpose.ref, true);
      if (!conv || conv.status !== 'PAYMENT_REQUIRED') {
        await enqueueHoldJob(tx, jobs, { holdId: hold.holdId, action: 'release' });
        return;
      }
      await tx.query(
        'INSERT INTO visit_holds (conversation_id, request_seq, hold_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (conversation_id, request_seq) DO NOTHING',
        [conv.id, conv.requestSeq, hold.holdId, ports.clock.now().toISOString()]);
      await applyTransition(tx, platform, conv, 'payment_approved', {
        at: ports.clock.now(), set: { payment_gate: null },
        message: 'The visit payment hold was approved; a licensed provider is being matched. Wait for the provider with wait_for_reply.',
      });
      const data: MatchJobData = { conversationId: conv.id, requestSeq: conv.requestSeq };
      await jobs.send(MATCH_JOB, data, {
        retryLimit: 5, retryDelaySeconds: 2, singletonKey: `${conv.id}:${conv.requestSeq}`,
        expireInSeconds: ports.visits?.matchJobExpireSeconds ?? MATCH_JOB_EXPIRE_SECONDS,
      }, tx);
    },
  };
}
