/**
 * The embedded pharmacy partner and our side of its protocol on both storage backends (PGlite and
 * a throwaway PostgreSQL): the feed is paged by cursor in commit order, pushes and pulls of one
 * event apply once, a lost push is recovered by reconcile from the stored cursor, and a move the
 * status table does not allow is refused without touching the order. No app: the functions the
 * jobs run, called directly on a clock the test moves.
 */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { migrate } from '../../engine/storage/migrate.ts';
import type { Db } from '../../engine/ports/db.ts';
import { createOutbox } from '../../engine/platform/outbox.ts';
import { insertConversation } from '../../engine/consultations/consultation-store.ts';
import { EmbeddedPharmacyPartner } from '../../engine/prescriptions/adapters/partner.embedded.ts';
import { insertOrder, loadOrder } from '../../engine/prescriptions/prescription-store.ts';
import { applyPartnerEvent, reconcile, type SyncDeps } from '../../engine/prescriptions/prescription-sync.ts';
import { canMove, PRESCRIPTION_STATUSES, TRANSITIONS } from '../../engine/prescriptions/prescription-status.ts';
import { ManualClock } from '../helpers/app.ts';
import { backends, useBackends } from '../storage/backends.ts';

useBackends();
const log = pino({ level: 'silent' });

async function world(db: Db) {
  await migrate(db);
  const clock = new ManualClock();
  const partner = new EmbeddedPharmacyPartner({ db, clock, stepSeconds: 10, log });
  const deps: SyncDeps = { db, outbox: createOutbox(db), clock, partner, log };
  partner.onEvent(async (e) => { await applyPartnerEvent(deps, e, 'push'); });
  await db.query(`INSERT INTO accounts (id, email, email_lower, password_hash) VALUES ('a1', 'a@x.test', 'a@x.test', 'x')`);
  await db.query(`INSERT INTO patients (id, account_id, relationship) VALUES ('p1', 'a1', 'self')`);
  await insertConversation(db, { id: 'c1', accountId: 'a1', patientId: 'p1', title: 't', status: 'WITH_PROVIDER', region: 'US-CA', requestRegion: 'US-CA', requestSeq: 1, createdAt: clock.now() });
  await db.query(`INSERT INTO conversation_visits (id, conversation_id, request_seq, provider_id, provider_name, started_at) VALUES ('v1', 'c1', 1, 'd1', 'Dr. D', now())`);
  let n = 0;
  const order = async (drug = 'Amoxicillin') => {
    const id = `rx_${++n}`;
    await insertOrder(db, {
      id, accountId: 'a1', patientId: 'p1', conversationId: 'c1', visitId: 'v1', providerId: 'd1', partner: 'embedded', targetPharmacy: null, at: clock.now(),
      items: [{ id: `rxi_${n}`, drug: { name: drug, strength: '1 mg', form: 'tablet' }, quantity: 1, instructions: 'x', hasRefill: false, refillQuantity: 0 }],
    });
    await partner.submit({ clientRef: id, items: [{ drug: { name: drug, strength: '1 mg', form: 'tablet' }, quantity: 1, instructions: 'x', hasRefill: false, refillQuantity: 0 }], pharmacyNpi: null, prescriberNpi: null });
    return id;
  };
  const step = async () => { clock.advance(10_000); return partner.tick(); };
  const status = async (id: string) => (await loadOrder(db, id))!.status;
  return { clock, partner, deps, order, step, status };
}

describe.each(backends)('pharmacy partner protocol ($name)', (backend) => {
  it('a resubmitted order is the same order; the feed pages by cursor, in order, each event once', async () => {
    const db = await backend.open();
    try {
      const w = await world(db);
      const a = await w.order();
      const again = await w.partner.submit({ clientRef: a, items: [{ drug: { name: 'Amoxicillin', strength: '1 mg', form: 'tablet' }, quantity: 1, instructions: 'x', hasRefill: false, refillQuantity: 0 }], pharmacyNpi: null, prescriberNpi: null });
      expect((await db.query('SELECT id FROM embedded_pharmacy_orders WHERE client_ref = $1', [a])).rows).toEqual([{ id: again.partnerOrderId }]);
      await w.order();
      for (let i = 0; i < 6; i++) await w.step();
      const all: number[] = [];
      let cursor: string | null = null;
      for (;;) {
        const page = await w.partner.events(cursor, 3);
        all.push(...page.events.map((e) => e.sequence));
        cursor = page.cursor;
        if (!page.hasMore) break;
      }
      expect(all).toHaveLength(8);
      expect([...all].sort((x, y) => x - y)).toEqual(all);
      expect(new Set(all).size).toBe(all.length);
      expect(await w.status(a)).toBe('COMPLETED');
      // Nothing new after the end: the cursor stays.
      expect(await w.partner.events(cursor, 3)).toEqual({ events: [], cursor, hasMore: false });
    } finally {
      await db.close();
    }
  });

  it('lost pushes come back through reconcile from the stored cursor; duplicates and stale events change nothing', async () => {
    const db = await backend.open();
    try {
      const w = await world(db);
      const id = await w.order();
      w.partner.dropPush = () => true;
      const [received] = await w.step();
      await w.step();
      expect(await w.status(id)).toBe('UNKNOWN');
      expect(await reconcile(w.deps, 1)).toEqual({ pulled: 2, applied: 2 });
      expect(await w.status(id)).toBe('IN_PROGRESS');
      // Again: nothing new after the cursor.
      expect(await reconcile(w.deps)).toEqual({ pulled: 0, applied: 0 });
      // A late duplicate push of an applied event, and an old event replayed: no change, no event.
      expect(await applyPartnerEvent(w.deps, received!, 'push')).toBe('duplicate');
      expect(await applyPartnerEvent(w.deps, { ...received!, eventId: 'pev_replayed' }, 'push')).toBe('stale');
      const events = (await db.query<{ event: string }>('SELECT event FROM outbox_events ORDER BY seq')).rows.map((r) => r.event);
      expect(events).toEqual(['prescription_updated', 'prescription_updated']);
      // An event for an order we do not have is recorded, not applied.
      expect(await applyPartnerEvent(w.deps, { ...received!, eventId: 'pev_other', clientRef: 'rx_unknown', sequence: 999 }, 'pull')).toBe('unknown_order');
    } finally {
      await db.close();
    }
  });

  it('a move the table does not allow (out of a final status) is refused and changes nothing', async () => {
    const db = await backend.open();
    try {
      const w = await world(db);
      const id = await w.order('Test Reject');
      await w.step();
      await w.step();
      expect(await w.status(id)).toBe('ERROR');
      const before = await loadOrder(db, id);
      const forged = { eventId: 'pev_forged', sequence: 10_000, partnerOrderId: 'po_x', clientRef: id, state: 'completed' as const, reason: null, occurredAt: w.clock.now().toISOString() };
      expect(await applyPartnerEvent(w.deps, forged, 'pull')).toBe('refused');
      expect(await loadOrder(db, id)).toEqual(before);
    } finally {
      await db.close();
    }
  });
});

describe('the status table', () => {
  it('final statuses move nowhere; nothing moves back to UNKNOWN; every target is a status', () => {
    for (const s of ['COMPLETED', 'CANCELLED', 'ERROR'] as const) expect(TRANSITIONS[s]).toEqual([]);
    for (const from of PRESCRIPTION_STATUSES) {
      expect(canMove(from, 'UNKNOWN')).toBe(false);
      for (const to of TRANSITIONS[from]) expect(PRESCRIPTION_STATUSES).toContain(to);
    }
    expect(canMove('READY_FOR_PICKUP', 'IN_PROGRESS')).toBe(false);
    expect(canMove('UNKNOWN', 'IN_PROGRESS')).toBe(true);
  });
});
