/**
 * The prescriptions area's jobs (engine/workers.ts): handing new orders to the partner, the
 * reconciliation pull that recovers missed pushes (on a timer every PHARMACY_RECONCILE_SECONDS),
 * the push receiver, and the partner's own machinery (the embedded partner's timers).
 */
import { z } from 'zod';
import type { Logger } from 'pino';
import type { Ports } from '../core/context.ts';
import type { JobQueue } from '../ports/jobs.ts';
import type { Outbox } from '../ports/outbox.ts';
import { loadOrder, orderViews, setPartnerOrderId } from './prescription-store.ts';
import { applyPartnerEvent, reconcile, type SyncDeps } from './prescription-sync.ts';
import { RECONCILE_JOB, SUBMIT_JOB, type PrescriptionsPorts } from './prescriptions.ports.ts';

const SubmitJobSchema = z.object({ orderId: z.string().min(1) });

/** Hands one order to the partner; idempotent (the partner dedups on our order id). */
export async function submitOrder(ports: Ports & { prescriptions: PrescriptionsPorts }, orderId: string): Promise<void> {
  const order = await loadOrder(ports.db, orderId);
  if (!order || order.partner_order_id) return;
  const [view] = await orderViews(ports.db, [order]);
  const { rows } = await ports.db.query<{ npi: string }>('SELECT npi FROM providers WHERE account_id = (SELECT provider_id FROM prescription_orders WHERE id = $1)', [orderId]);
  const accepted = await ports.prescriptions.partner.submit({
    clientRef: order.id,
    items: view!.prescriptions.map((i) => ({
      drug: { name: i.drug.name, strength: i.drug.strength, form: i.drug.form }, quantity: i.quantity, instructions: i.instructions, hasRefill: i.hasRefill, refillQuantity: i.refillQuantity,
    })),
    pharmacyNpi: view!.targetPharmacy?.accreditationNumber ?? null,
    prescriberNpi: rows[0]?.npi ?? null,
  });
  await setPartnerOrderId(ports.db, order.id, accepted.partnerOrderId);
}

/** A WorkerRegistration (engine/workers.ts; typed structurally so the area does not import the root list). */
export async function registerPrescriptionWorkers(ports: Ports & { jobs: JobQueue }, log: Logger): Promise<void> {
  const { prescriptions, outbox, jobs } = ports;
  if (!prescriptions || !outbox) return;
  const full = { ...ports, prescriptions };
  const deps: SyncDeps = { db: ports.db, outbox: outbox satisfies Outbox, clock: ports.clock, partner: prescriptions.partner, log };
  // Pushed events: applied at once; one that fails here is recovered by the next pull.
  prescriptions.partner.onEvent(async (e) => { await applyPartnerEvent(deps, e, 'push'); });
  await jobs.work(SUBMIT_JOB, async (job) => {
    const d = SubmitJobSchema.safeParse(job.data);
    if (!d.success) { log.error({ job: SUBMIT_JOB }, 'malformed prescriptions job dropped'); return; }
    await submitOrder(full, d.data.orderId);
  }, { concurrency: 2 });
  const every = prescriptions.reconcileSeconds;
  // The timer is an interval of the job queue's own (wall) time, not domain time: a test's manual
  // clock must not make it spin. One job per time slot (singleton key): the job arms the next slot.
  const arm = async (delaySeconds: number) => {
    const due = Date.now() + delaySeconds * 1000;
    await jobs.send(RECONCILE_JOB, {}, { startAfter: new Date(due), singletonKey: `timer:${Math.floor(due / (every * 1000))}`, retryLimit: 0 });
  };
  await jobs.work(RECONCILE_JOB, async () => {
    try {
      await reconcile(deps);
    } finally {
      if (every > 0) await arm(every);
    }
  }, { concurrency: 1 });
  if (every > 0) await arm(0);
  await prescriptions.partner.start?.(jobs, log);
}
