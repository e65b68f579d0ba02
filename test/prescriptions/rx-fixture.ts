/**
 * Shared steps of the prescriptions tests: a visit taken to WITH_PROVIDER through the real flow
 * (scripted triage, the hosted payment page, matching, accept), a prescription body, the order's
 * events, and the embedded partner of a test app.
 */
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { FakeIdentity } from '../helpers/fake-identity.ts';
import { gatedConversation, payLink, provider, until, type Client, type Json } from '../visits/visit-fixture.ts';
import { EmbeddedPharmacyPartner } from '../../engine/prescriptions/adapters/partner.embedded.ts';

export type Doctor = Awaited<ReturnType<typeof provider>>;

/** A patient whose conversation is WITH_PROVIDER, the visit held by `doctor`. */
export async function visitWith(env: TestApp, identity: FakeIdentity, doctor: Doctor): Promise<{ api: Client; id: string; userId: string; token: string }> {
  const c = await gatedConversation(env, identity);
  const link = await c.api('POST', `/api/consultations/${c.id}/payment`);
  expect(link.status, JSON.stringify(link.body)).toBe(200);
  expect((await payLink(env, link.body.paymentUrl as string)).statusCode).toBe(303);
  await until(() => doctor.api('GET', '/api/provider/queue'), (q) => (q.body.waiting as Json[] | undefined)?.some((w) => w.conversationId === c.id) ?? false);
  const a = await doctor.api('POST', `/api/provider/visits/${c.id}/accept`);
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  return c;
}

export const AMOXICILLIN = {
  drug: { name: 'Amoxicillin', strength: '500 mg', form: 'capsule' },
  quantity: 21, instructions: 'One capsule three times a day for 7 days.', hasRefill: false, refillQuantity: 0,
};

export function partnerOf(env: TestApp): EmbeddedPharmacyPartner {
  const p = env.services.ports.prescriptions?.partner;
  if (!(p instanceof EmbeddedPharmacyPartner)) throw new Error('the test app has no embedded pharmacy partner');
  return p;
}

/** The outbox events of an order, oldest first, with everything they carry. */
export async function orderEvents(env: TestApp, orderId: string): Promise<Json[]> {
  const { rows } = await env.db.query(
    `SELECT event, user_id, consultation_id, status, message, data FROM outbox_events WHERE data->>'prescriptionOrderId' = $1 ORDER BY seq`, [orderId]);
  return rows;
}

/** Waits until the submit job handed the order to the partner. */
export async function submitted(env: TestApp, orderId: string): Promise<void> {
  await until(async () => (await env.db.query<{ partner_order_id: string | null }>('SELECT partner_order_id FROM prescription_orders WHERE id = $1', [orderId])).rows[0]?.partner_order_id ?? null,
    (v) => v !== null);
}
