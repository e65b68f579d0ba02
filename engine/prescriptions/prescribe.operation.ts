/**
 * Prescribing during a visit (issue 36, item 1), and the visit's orders as the clinician reads
 * them (`GET` on the same path: the console's visit page lists them): `POST /api/provider/visits/{conversationId}/prescriptions`,
 * a clinician's bearer only, on a visit the clinician holds (the same checks as the other visit
 * actions: engine/visits/provider.operations.ts lockOwnVisit). The order, its item, its first
 * status (UNKNOWN), the `prescription_added` event and the job that hands it to the partner are
 * written in one transaction; the partner is called by that job, never inside it.
 */
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import { AppError } from '../core/errors.ts';
import type { HandlerContext } from '../core/context.ts';
import { insertMessage, newId, loadConversation } from '../consultations/consultation-store.ts';
import { requireProvider } from '../visits/provider-store.ts';
import { lockOwnVisit, readableConversation } from '../visits/provider.operations.ts';
import { ConversationRefSchema } from '../visits/visits.schema.ts';
import { conversationOrders, insertOrder, loadOrder, orderViews } from './prescription-store.ts';
import { SUBMIT_JOB, type PrescriptionsPorts } from './prescriptions.ports.ts';
import { PrescribeInputSchema, PrescribeOutputSchema, VisitPrescriptionsOutputSchema, type PrescribeInput, type TargetPharmacy } from './prescriptions.schema.ts';
import { distanceKm } from '../pricing/geo.ts';

export function prescriptionsPorts(ctx: HandlerContext): PrescriptionsPorts {
  const p = ctx.ports.prescriptions;
  if (!p) throw new AppError('not_ready', 'Prescriptions are not served by this process.');
  return p;
}

/** The chosen pharmacy as the order keeps it, its distance from the patient's ZIP when the profile has one. */
async function targetPharmacy(ctx: HandlerContext, ports: PrescriptionsPorts, input: PrescribeInput): Promise<TargetPharmacy | null> {
  if (input.pharmacyNpi === undefined) return null;
  if (!ports.pharmacies) throw new AppError('pricing_data_unavailable', 'The pharmacy directory is not available; prescribe without a pharmacy or retry later.');
  const ph = await ports.pharmacies.byNpi(input.pharmacyNpi);
  if (!ph) throw new AppError('invalid_request', 'No pharmacy with this NPI in the directory; find one with GET /api/pharmacies.', { field: 'pharmacyNpi' });
  const conv = await loadConversation(ctx.ports.db, input.conversationId);
  const zip = conv ? (await ctx.ports.db.query<{ postal_code: string | null }>('SELECT postal_code FROM patients WHERE id = $1', [conv.patientId])).rows[0]?.postal_code : null;
  const from = zip ? await ports.pharmacies.zipCentroid(zip.slice(0, 5)) : null;
  const { npi: _npi, state: _state, taxonomy: _taxonomy, ...kept } = ph;
  return { ...kept, distanceKm: distanceKm(from, ph.latitude, ph.longitude) };
}

export const prescribeOp = defineOperation({
  name: 'provider_prescribe',
  title: 'Prescribe',
  description: 'Write a prescription in your open visit: one drug (name, strength, form), quantity, instructions, refills, and optionally a pharmacy NPI from GET /api/pharmacies. The external pharmacy partner fulfils it; the patient\'s agent sees it with get_prescriptions (event prescription_added, then prescription_updated as its status changes).',
  input: PrescribeInputSchema, output: PrescribeOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  auth: 'required', mcp: false,
  rest: [{ method: 'POST', path: '/api/provider/visits/:conversationId/prescriptions' }],
  handler: async (input, ctx) => {
    const p = await requireProvider(ctx, ['clinician']);
    if (input.hasRefill !== input.refillQuantity > 0) {
      throw new AppError('invalid_request', input.hasRefill ? 'With hasRefill, refillQuantity must be 1 or more.' : 'refillQuantity must be 0 without hasRefill.', { field: 'refillQuantity' });
    }
    const ports = prescriptionsPorts(ctx);
    const { outbox, jobs } = ctx.ports;
    if (!outbox || !jobs) throw new AppError('not_ready', 'Prescriptions are not served by this process.');
    const pharmacy = await targetPharmacy(ctx, ports, input);
    const at = ctx.ports.clock.now();
    const id = newId('rx');
    await ctx.ports.db.transaction(async (tx) => {
      const { conv, visit } = await lockOwnVisit(tx, p, input.conversationId);
      await insertOrder(tx, {
        id, accountId: conv.accountId, patientId: conv.patientId, conversationId: conv.id, visitId: visit.id, providerId: p.accountId,
        partner: ports.partner.name, targetPharmacy: pharmacy, at,
        items: [{ id: newId('rxi'), drug: input.drug, quantity: input.quantity, instructions: input.instructions, hasRefill: input.hasRefill, refillQuantity: input.refillQuantity }],
      });
      // In the thread too (as "joined the visit" is), so the patient's waiting agent wakes and reads it.
      await insertMessage(tx, {
        conversationId: conv.id, requestSeq: conv.requestSeq, sender: 'system', senderId: 'carebridge', at,
        content: `${p.displayName} sent a prescription to the pharmacy partner (order ${id}). Read it with get_prescriptions.`,
      });
      // service-spec.md, Events: the event names the order, never the drug.
      await outbox.append(tx, {
        event: 'prescription_added', userId: conv.accountId, consultationId: conv.id,
        message: `The clinician wrote a prescription. Fetch it with get_prescriptions (GET /api/prescriptions/${id}) and tell the patient; the pharmacy partner fulfils it.`,
        data: { prescriptionOrderId: id },
      });
      await jobs.send(SUBMIT_JOB, { orderId: id }, { retryLimit: 8, retryDelaySeconds: 5, singletonKey: id }, tx);
    });
    const order = await loadOrder(ctx.ports.db, id);
    return { success: true, prescriptionOrder: (await orderViews(ctx.ports.db, [order!]))[0]! };
  },
});

/**
 * A conversation's prescription orders for the providers who may read the conversation (the same
 * rule as provider_get_visit): the clinician console's visit page lists them, with their status.
 */
export const visitPrescriptionsOp = defineOperation({
  name: 'provider_visit_prescriptions',
  title: 'A visit\'s prescriptions',
  description: 'The prescription orders written in this conversation\'s visits, newest first, each with its status as the pharmacy partner reports it, its items and its pharmacy.',
  input: ConversationRefSchema, output: VisitPrescriptionsOutputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required', mcp: false,
  rest: [{ method: 'GET', path: '/api/provider/visits/:conversationId/prescriptions' }],
  handler: async (input, ctx) => {
    const conv = await readableConversation(ctx, input.conversationId);
    return { prescriptionOrders: await orderViews(ctx.ports.db, await conversationOrders(ctx.ports.db, conv.id)) };
  },
});

export const prescribeOperations: AnyOperation[] = [prescribeOp, visitPrescriptionsOp];
