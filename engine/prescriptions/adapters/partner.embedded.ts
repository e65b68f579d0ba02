/**
 * The embedded pharmacy partner (issue 36, item 1; STYLE.md: fakes that behave): a small real
 * implementation of the other side, on its own tables (migration 061). It accepts orders, moves
 * each through its lifecycle on timers (durable jobs on the queue, one step every
 * PHARMACY_PARTNER_STEP_SECONDS), writes every move to its event feed, pushes each event once to
 * the receiver (no retry, as partners' webhooks) and serves the feed cursor-paged.
 *
 * Lifecycle (docs/prescriptions.md): accepted (silent) -> received -> in_progress ->
 * ready_for_pickup -> completed (the patient picks it up, three steps later). Like Stripe's test
 * cards, a drug named "Test Reject" is refused after intake (received -> error) and one named
 * "Test Unclaimed" is never picked up (ready_for_pickup -> cancelled, returned to stock).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../ports/clock.ts';
import type { Db } from '../../ports/db.ts';
import type { JobQueue } from '../../ports/jobs.ts';
import type { PartnerState } from '../prescription-status.ts';
import type { PartnerEvent, PartnerEventPage, PartnerOrderRequest, PharmacyPartner } from '../prescriptions.ports.ts';

/** The partner's timer: advances the orders whose next step is due. */
export const EMBEDDED_TICK_JOB = 'pharmacy-partner.embedded.tick';

type Scenario = 'normal' | 'reject' | 'unclaimed';
type OwnState = 'accepted' | PartnerState;

interface Step { state: PartnerState; reason: string | null; /** Steps until the next move; null: final. */ then: number | null }

/** The partner's lifecycle as data: the move out of each state, per scenario. */
const LIFECYCLE: Record<Scenario, Partial<Record<OwnState, Step>>> = {
  normal: {
    accepted: { state: 'received', reason: null, then: 1 },
    received: { state: 'in_progress', reason: null, then: 1 },
    in_progress: { state: 'ready_for_pickup', reason: null, then: 3 },
    ready_for_pickup: { state: 'completed', reason: null, then: null },
  },
  reject: {
    accepted: { state: 'received', reason: null, then: 1 },
    received: { state: 'error', reason: 'The pharmacy could not fill this prescription: the prescriber could not be verified.', then: null },
  },
  unclaimed: {
    accepted: { state: 'received', reason: null, then: 1 },
    received: { state: 'in_progress', reason: null, then: 1 },
    in_progress: { state: 'ready_for_pickup', reason: null, then: 3 },
    ready_for_pickup: { state: 'cancelled', reason: 'Not picked up in time; the pharmacy returned it to stock.', then: null },
  },
};

function scenarioOf(order: PartnerOrderRequest): Scenario {
  const names = order.items.map((i) => i.drug.name.trim().toLowerCase());
  if (names.includes('test reject')) return 'reject';
  if (names.includes('test unclaimed')) return 'unclaimed';
  return 'normal';
}

const cursorOf = (seq: number): string => `c${seq}`;
function seqOf(cursor: string | null): number {
  const m = cursor === null ? null : /^c(\d{1,15})$/.exec(cursor);
  return m ? Number(m[1]) : 0;
}

export interface EmbeddedPartnerOptions {
  db: Db;
  clock: Clock;
  /** Seconds between steps (0: the whole lifecycle at the next tick). */
  stepSeconds: number;
  log: Logger;
}

export class EmbeddedPharmacyPartner implements PharmacyPartner {
  readonly name = 'embedded';
  /** Tests: a push for which this returns true is lost on the way, as a webhook can be. */
  dropPush: (e: PartnerEvent) => boolean = () => false;
  private receiver: ((e: PartnerEvent) => Promise<void>) | null = null;
  private jobs: JobQueue | null = null;
  private readonly o: EmbeddedPartnerOptions;

  constructor(o: EmbeddedPartnerOptions) {
    this.o = o;
  }

  onEvent(receiver: (e: PartnerEvent) => Promise<void>): void {
    this.receiver = receiver;
  }

  async start(jobs: JobQueue): Promise<void> {
    this.jobs = jobs;
    await jobs.work(EMBEDDED_TICK_JOB, async () => { await this.tick(); }, { concurrency: 1 });
  }

  private dueAt(steps: number): Date {
    return new Date(this.o.clock.now().getTime() + steps * this.o.stepSeconds * 1000);
  }

  private async schedule(tx: Db, orderId: string, state: OwnState, at: Date): Promise<void> {
    await this.jobs?.send(EMBEDDED_TICK_JOB, { orderId }, { startAfter: at, singletonKey: `${orderId}:${state}`, retryLimit: 5 }, tx);
  }

  async submit(order: PartnerOrderRequest): Promise<{ partnerOrderId: string }> {
    if (!order.items.length) throw new Error('embedded pharmacy partner: an order needs an item');
    return this.o.db.transaction(async (tx) => {
      const id = `po_${randomBytes(10).toString('hex')}`;
      const due = this.dueAt(1);
      const { rowCount } = await tx.query(
        `INSERT INTO embedded_pharmacy_orders (id, client_ref, state, scenario, next_step_at, created_at) VALUES ($1, $2, 'accepted', $3, $4, $5)
         ON CONFLICT (client_ref) DO NOTHING`, [id, order.clientRef, scenarioOf(order), due.toISOString(), this.o.clock.now().toISOString()]);
      if (rowCount) await this.schedule(tx, id, 'accepted', due);
      const { rows } = await tx.query<{ id: string }>('SELECT id FROM embedded_pharmacy_orders WHERE client_ref = $1', [order.clientRef]);
      return { partnerOrderId: rows[0]!.id };
    });
  }

  /** Advances every order whose step is due by the clock, one step each; pushes each event after its commit. */
  async tick(): Promise<PartnerEvent[]> {
    const now = this.o.clock.now();
    const out: PartnerEvent[] = [];
    for (let i = 0; i < 10_000; i++) {
      const e = await this.o.db.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: string; client_ref: string; state: OwnState; scenario: Scenario }>(
          `SELECT id, client_ref, state, scenario FROM embedded_pharmacy_orders WHERE next_step_at <= $1
           ORDER BY next_step_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`, [now.toISOString()]);
        const row = rows[0];
        if (!row) return null;
        const step = LIFECYCLE[row.scenario][row.state];
        if (!step) {
          await tx.query('UPDATE embedded_pharmacy_orders SET next_step_at = NULL WHERE id = $1', [row.id]);
          return undefined;
        }
        // Feed writers serialise, so seq order is commit order (migration 061).
        await tx.query('LOCK TABLE embedded_pharmacy_events IN SHARE ROW EXCLUSIVE MODE');
        const eventId = `pev_${randomBytes(10).toString('hex')}`;
        const ins = await tx.query<{ seq: string | number }>(
          `INSERT INTO embedded_pharmacy_events (event_id, order_id, client_ref, state, reason, occurred_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq`,
          [eventId, row.id, row.client_ref, step.state, step.reason, now.toISOString()]);
        const next = step.then === null ? null : this.dueAt(step.then);
        await tx.query('UPDATE embedded_pharmacy_orders SET state = $2, next_step_at = $3 WHERE id = $1', [row.id, step.state, next?.toISOString() ?? null]);
        if (next) await this.schedule(tx, row.id, step.state, next);
        const ev: PartnerEvent = {
          eventId, sequence: Number(ins.rows[0]!.seq), partnerOrderId: row.id, clientRef: row.client_ref, state: step.state, reason: step.reason, occurredAt: now.toISOString(),
        };
        return ev;
      });
      if (e === null) break;
      if (e === undefined) continue;
      out.push(e);
      await this.push(e);
    }
    return out;
  }

  private async push(e: PartnerEvent): Promise<void> {
    if (!this.receiver || this.dropPush(e)) return;
    try {
      await this.receiver(e);
    } catch (err) {
      // As a webhook the receiver failed: not retried. The receiver's pull recovers it.
      this.o.log.warn({ err: err instanceof Error ? err.message : String(err), eventId: e.eventId }, 'embedded pharmacy partner: push failed');
    }
  }

  async events(after: string | null, limit: number): Promise<PartnerEventPage> {
    const from = seqOf(after);
    const n = Math.max(1, Math.min(500, Math.trunc(limit)));
    const { rows } = await this.o.db.query<{ seq: string | number; event_id: string; order_id: string; client_ref: string; state: PartnerState; reason: string | null; occurred_at: string | Date }>(
      'SELECT seq, event_id, order_id, client_ref, state, reason, occurred_at FROM embedded_pharmacy_events WHERE seq > $1 ORDER BY seq LIMIT $2', [from, n + 1]);
    const page = rows.slice(0, n).map((r): PartnerEvent => ({
      eventId: r.event_id, sequence: Number(r.seq), partnerOrderId: r.order_id, clientRef: r.client_ref, state: r.state, reason: r.reason,
      occurredAt: new Date(r.occurred_at).toISOString(),
    }));
    const last = page.at(-1);
    return { events: page, cursor: last ? cursorOf(last.sequence) : after, hasMore: rows.length > n };
  }
}
