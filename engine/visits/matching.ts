/**
 * Matching (issue 35, item 3). On entering MATCHING a job offers the request to the clinicians
 * licensed in its region, ranked least loaded first (fewest open visits), and schedules the
 * deadline; the offers are what a clinician's queue shows. Nobody accepting by the deadline
 * (MATCHING_TIMEOUT_SECONDS) returns the conversation to IDLE (trigger matching_timeout, event
 * status_changed) and releases the hold. Both jobs are durable (a process killed between the
 * approval and the match resumes on restart) and idempotent (a job may run twice).
 */
import type { Logger } from 'pino';
import type { Ports } from '../core/context.ts';
import { applyTransition, loadConversation } from '../consultations/consultation-store.ts';
import { licensedClinicians } from './provider-store.ts';
import { enqueueHoldJob, settleSoon, visitHoldId } from './visit-holds.ts';
import { MATCH_TIMEOUT_JOB, offersTopic, type MatchJobData } from './visits.ports.ts';

type MatchPorts = Ports & Required<Pick<Ports, 'jobs' | 'outbox' | 'bus' | 'visits'>>;

export async function runMatchJob(ports: MatchPorts, data: MatchJobData, log: Logger): Promise<void> {
  const conv = await loadConversation(ports.db, data.conversationId);
  if (!conv || conv.status !== 'MATCHING' || conv.requestSeq !== data.requestSeq) return;
  const region = conv.requestRegion ?? conv.region;
  const clinicians = await licensedClinicians(ports.db, region);
  const at = ports.clock.now();
  const deadline = new Date(at.getTime() + ports.visits.matchingTimeoutSeconds * 1000);
  await ports.db.transaction(async (tx) => {
    const locked = await loadConversation(tx, conv.id, true);
    if (!locked || locked.status !== 'MATCHING' || locked.requestSeq !== data.requestSeq) return;
    let rank = 0;
    for (const c of clinicians) {
      await tx.query(
        `INSERT INTO visit_offers (conversation_id, request_seq, provider_id, rank, offered_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING`, [conv.id, data.requestSeq, c.accountId, ++rank, at.toISOString()]);
      // Wakes the clinician's open queue page (api/console) when the offer commits.
      await ports.bus.publish(offersTopic(c.accountId), 'offered', tx);
    }
    await ports.jobs.send(MATCH_TIMEOUT_JOB, data, { startAfter: deadline, retryLimit: 5, singletonKey: `${conv.id}:${data.requestSeq}` }, tx);
  });
  log.info({ conversationId: conv.id, region, offered: clinicians.length }, 'visit offered to licensed clinicians');
}

export async function runMatchTimeoutJob(ports: MatchPorts, data: MatchJobData, log: Logger): Promise<void> {
  const holdId = await ports.db.transaction(async (tx) => {
    const conv = await loadConversation(tx, data.conversationId, true);
    if (!conv || conv.status !== 'MATCHING' || conv.requestSeq !== data.requestSeq) return null;
    await applyTransition(tx, ports, conv, 'matching_timeout', {
      at: ports.clock.now(),
      message: 'No provider could accept the visit in time. The payment hold was released and nothing was charged; the conversation is IDLE. Send a message to try again.',
    });
    const id = await visitHoldId(tx, conv.id, conv.requestSeq);
    if (id) await enqueueHoldJob(tx, ports.jobs, { holdId: id, action: 'release' });
    return id;
  });
  if (holdId) {
    log.info({ conversationId: data.conversationId }, 'matching timed out; hold released');
    await settleSoon(ports.payments?.processor, { holdId, action: 'release' }, log);
  }
}
