/**
 * What the partner tells us, applied (issue 36, item 1). A pushed event and the same event pulled
 * later from the feed are one event (deduplicated on the partner's event id); each is applied in
 * one transaction with its `prescription_updated` outbox event, or recorded as stale, refused or
 * for an unknown order and changes nothing. The reconciliation pull resumes from the stored
 * cursor, so a push the partner sent while we were down (or that was lost) is recovered.
 */
import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.ts';
import type { Db } from '../ports/db.ts';
import type { Outbox } from '../ports/outbox.ts';
import { canMove, STATUS_OF } from './prescription-status.ts';
import { loadOrder, moveOrder, readCursor, saveCursor } from './prescription-store.ts';
import type { PartnerEvent, PharmacyPartner } from './prescriptions.ports.ts';

export interface SyncDeps {
  db: Db;
  outbox: Outbox;
  clock: Clock;
  partner: PharmacyPartner;
  log: Logger;
}

export type ApplyOutcome = 'applied' | 'stale' | 'refused' | 'unknown_order' | 'duplicate';

/** Applies one partner event (pushed or pulled). Idempotent: a second delivery is `duplicate`. */
export async function applyPartnerEvent(deps: SyncDeps, e: PartnerEvent, via: 'push' | 'pull'): Promise<ApplyOutcome> {
  const at = deps.clock.now();
  const outcome = await deps.db.transaction(async (tx): Promise<ApplyOutcome> => {
    // The order row lock first: two deliveries of one order's events serialise here.
    const order = await loadOrder(tx, e.clientRef, true);
    const record = async (result: Exclude<ApplyOutcome, 'duplicate'>): Promise<boolean> => {
      const { rowCount } = await tx.query(
        `INSERT INTO prescription_partner_events (partner, event_id, order_id, partner_seq, partner_state, via, outcome, received_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
        [deps.partner.name, e.eventId, order?.id ?? null, e.sequence, e.state, via, result, at.toISOString()]);
      return rowCount > 0;
    };
    if (!order || order.partner !== deps.partner.name) return (await record('unknown_order')) ? 'unknown_order' : 'duplicate';
    const to = STATUS_OF[e.state];
    const result = e.sequence <= order.partner_seq ? 'stale' : canMove(order.status, to) ? 'applied' : 'refused';
    if (!(await record(result))) return 'duplicate';
    if (result !== 'applied') return result;
    await moveOrder(tx, order, to, { eventId: e.eventId, sequence: e.sequence, reason: e.reason, at });
    // service-spec.md, Events: the event names the order; its content is fetched through the API.
    await deps.outbox.append(tx, {
      event: 'prescription_updated', userId: order.account_id, consultationId: order.conversation_id,
      message: `A prescription order's status changed. Fetch it with get_prescriptions (GET /api/prescriptions/${order.id}) and tell the patient what it means for them.`,
      data: { prescriptionOrderId: order.id },
    });
    return 'applied';
  });
  if (outcome === 'refused' || outcome === 'unknown_order') {
    deps.log.warn({ partner: deps.partner.name, eventId: e.eventId, state: e.state, outcome }, 'pharmacy partner event not applied');
  }
  return outcome;
}

/**
 * Pulls the partner's feed from the stored cursor to its end, applying each event; the cursor is
 * saved after each page (a crash mid-way re-reads at most one page, which dedup absorbs).
 */
export async function reconcile(deps: SyncDeps, pageSize = 100): Promise<{ pulled: number; applied: number }> {
  let cursor = await readCursor(deps.db, deps.partner.name);
  let pulled = 0;
  let applied = 0;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await deps.partner.events(cursor, pageSize);
    for (const e of page.events) {
      pulled++;
      if ((await applyPartnerEvent(deps, e, 'pull')) === 'applied') applied++;
    }
    if (page.cursor !== null && page.cursor !== cursor) {
      cursor = page.cursor;
      await saveCursor(deps.db, deps.partner.name, cursor, deps.clock.now());
    }
    if (!page.hasMore) break;
  }
  if (applied) deps.log.info({ partner: deps.partner.name, pulled, applied }, 'pharmacy partner events recovered by reconciliation');
  return { pulled, applied };
}
