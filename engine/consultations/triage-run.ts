/**
 * The triage job (issue 34, item 3): after each patient message on a TRIAGING conversation a job
 * runs the triage engine over the request's messages and writes its reply, the triage state and
 * the status move in one transaction with their events. The engine runs outside any transaction
 * (it may call an LLM); the write re-checks that nothing moved meanwhile. A job can run twice
 * (a crash after commit, a retry): the reply for a patient message is written once.
 */
import type { Logger } from 'pino';
import type { Ports } from '../core/context.ts';
import { sqlProfileStore } from '../profile/profile-store.ts';
import type { TriagePatient, TriageResult, TriageTurn } from '../triage/triage.port.ts';
import type { TriageJobData } from './consultation.ports.ts';
import {
  applyTransition, insertMessage, loadConversation, requestMessages, touch, type ConversationRow, type MessageRow, type PlatformWrite,
} from './consultation-store.ts';
import { openGate } from './consultation-view.ts';

/** Sender id of the triage assistant's messages. */
export const TRIAGE_SENDER_ID = 'carebridge-triage';

function ageYears(birthDate: string | null, now: Date): number | null {
  if (!birthDate) return null;
  const b = new Date(`${birthDate}T00:00:00Z`);
  let age = now.getUTCFullYear() - b.getUTCFullYear();
  const m = now.getUTCMonth() - b.getUTCMonth();
  if (m < 0 || (m === 0 && now.getUTCDate() < b.getUTCDate())) age--;
  return age >= 0 ? age : null;
}

function sexOf(s: string | null): TriagePatient['sex'] {
  return s === 'female' || s === 'male' ? s : s ? 'other' : null;
}

/** The request's turns for the engine: patient messages and the assistant's earlier questions. */
export function turnsOf(msgs: MessageRow[]): TriageTurn[] {
  const turns: TriageTurn[] = [];
  for (const m of msgs) {
    if (m.type !== 'text') continue;
    if (m.sender === 'user') turns.push({ role: 'patient', text: m.content });
    else if (m.sender === 'assistant') turns.push({ role: 'assistant', text: m.content, asked: m.meta.asked ?? [] });
  }
  return turns;
}

/** True when `conv` is still waiting for a triage answer to exactly `upToSeq`. */
function stillDue(conv: ConversationRow | null, msgs: MessageRow[], job: TriageJobData): conv is ConversationRow {
  if (!conv || conv.status !== 'TRIAGING' || conv.requestSeq !== job.requestSeq) return false;
  const lastPatient = msgs.filter((m) => m.sender === 'user').at(-1);
  // A newer patient message has its own job, which answers both.
  if (!lastPatient || lastPatient.seq !== job.upToSeq) return false;
  return !msgs.some((m) => m.sender === 'assistant' && (m.meta.answersSeq ?? 0) >= job.upToSeq);
}

/** Runs one triage job. Returns what happened, for logs and tests. */
export async function runTriageJob(ports: Ports, job: TriageJobData, log: Logger): Promise<'answered' | 'skipped'> {
  const care = ports.consultations;
  const platform = ports.outbox && ports.bus ? { outbox: ports.outbox, bus: ports.bus } satisfies PlatformWrite : null;
  if (!care || !platform) throw new Error('triage job needs the consultation ports and the platform (outbox, bus)');
  const conv = await loadConversation(ports.db, job.conversationId);
  const msgs = conv ? await requestMessages(ports.db, conv.id, job.requestSeq) : [];
  if (!stillDue(conv, msgs, job)) return 'skipped';

  const patient = await sqlProfileStore(ports.db).getPatient(conv.accountId, conv.patientId);
  const now = ports.clock.now();
  const result: TriageResult = await care.triage.assess({
    turns: turnsOf(msgs),
    patient: { ageYears: ageYears(patient?.demographics.birthDate ?? null, now), sex: sexOf(patient?.demographics.sex ?? null) },
  });

  return ports.db.transaction(async (tx) => {
    const locked = await loadConversation(tx, job.conversationId, true);
    const fresh = locked ? await requestMessages(tx, locked.id, job.requestSeq) : [];
    if (!stillDue(locked, fresh, job)) return 'skipped';
    const at = ports.clock.now();
    const lastPatient = fresh.filter((m) => m.sender === 'user').at(-1)!;
    await insertMessage(tx, {
      conversationId: locked.id, requestSeq: locked.requestSeq, sender: 'assistant', senderId: TRIAGE_SENDER_ID,
      content: result.reply, meta: { asked: result.asked, engine: result.engine, answersSeq: job.upToSeq }, at,
    });
    const triage = { acuity: result.acuity, redFlags: result.redFlags, summary: result.summary, engine: result.engine };
    await tx.query('UPDATE conversations SET triage = $2, information_need = $3, information_need_as_of = $4 WHERE id = $1',
      [locked.id, JSON.stringify(triage), JSON.stringify(result.informationNeed), lastPatient.id]);
    await platform.outbox.append(tx, {
      event: 'triage_reply', userId: locked.accountId, consultationId: locked.id, status: locked.status,
      message: 'The triage assistant replied. Fetch the conversation and relay the reply to the patient.',
    });
    await touch(tx, platform, locked.id, at);
    if (result.acuity === 'emergency') {
      await applyTransition(tx, platform, locked, 'emergency', {
        at, message: 'Emergency: the patient should call 911 now. Fetch the conversation and relay its advice immediately.',
      });
    } else if (result.complete) {
      await applyTransition(tx, platform, locked, 'triage_complete', {
        at, set: { payment_gate: openGate(result.summary) },
        message: 'Triage is complete. Ask the patient whether they want a visit with a licensed provider; they must approve the payment hold themselves.',
      });
    }
    log.debug({ conversationId: locked.id, acuity: result.acuity, complete: result.complete, engine: result.engine }, 'triage answered');
    return 'answered';
  });
}
