/**
 * SQL of the prescriptions area over the Db port (migration 060): orders and their items, the
 * spec's view of an order, and the partner feed's cursor. Rows coming back are parsed (STYLE.md 2).
 */
import { z } from 'zod';
import type { Db } from '../ports/db.ts';
import { PRESCRIPTION_STATUSES, type PrescriptionStatus } from './prescription-status.ts';
import { TargetPharmacySchema, type PrescriptionOrder, type TargetPharmacy } from './prescriptions.schema.ts';

const iso = z.union([z.date(), z.string()]).transform((v) => new Date(v).toISOString());
const OrderRowSchema = z.object({
  id: z.string(),
  account_id: z.string(),
  patient_id: z.string(),
  conversation_id: z.string(),
  visit_id: z.string(),
  status: z.enum(PRESCRIPTION_STATUSES),
  status_reason: z.string().nullable(),
  partner: z.string(),
  partner_order_id: z.string().nullable(),
  partner_seq: z.union([z.string(), z.number(), z.bigint()]).transform(Number),
  target_pharmacy: TargetPharmacySchema.nullable(),
  created_at: iso,
  updated_at: iso,
});
export type OrderRow = z.infer<typeof OrderRowSchema>;

const ItemRowSchema = z.object({
  id: z.string(),
  order_id: z.string(),
  drug_name: z.string(),
  drug_din: z.string().nullable(),
  drug_strength: z.string(),
  drug_form: z.string(),
  quantity: z.coerce.number(),
  instructions: z.string(),
  has_refill: z.boolean(),
  refill_quantity: z.coerce.number(),
});
type ItemRow = z.infer<typeof ItemRowSchema>;

const ORDER_COLS = 'id, account_id, patient_id, conversation_id, visit_id, status, status_reason, partner, partner_order_id, partner_seq, target_pharmacy, created_at, updated_at';

export interface NewOrder {
  id: string;
  accountId: string;
  patientId: string;
  conversationId: string;
  visitId: string;
  providerId: string;
  partner: string;
  targetPharmacy: TargetPharmacy | null;
  at: Date;
  items: { id: string; drug: { name: string; strength: string; form: string }; quantity: number; instructions: string; hasRefill: boolean; refillQuantity: number }[];
}

export async function insertOrder(tx: Db, o: NewOrder): Promise<void> {
  await tx.query(
    `INSERT INTO prescription_orders (id, account_id, patient_id, conversation_id, visit_id, provider_id, status, partner, target_pharmacy, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'UNKNOWN', $7, $8::jsonb, $9, $9)`,
    [o.id, o.accountId, o.patientId, o.conversationId, o.visitId, o.providerId, o.partner, o.targetPharmacy ? JSON.stringify(o.targetPharmacy) : null, o.at.toISOString()]);
  let position = 0;
  for (const it of o.items) {
    await tx.query(
      `INSERT INTO prescription_items (id, order_id, position, drug_name, drug_din, drug_strength, drug_form, quantity, instructions, has_refill, refill_quantity)
       VALUES ($1, $2, $3, $4, NULL, $5, $6, $7, $8, $9, $10)`,
      [it.id, o.id, position++, it.drug.name, it.drug.strength, it.drug.form, it.quantity, it.instructions, it.hasRefill, it.refillQuantity]);
  }
  await tx.query('INSERT INTO prescription_status_changes (order_id, from_status, to_status, event_id, at) VALUES ($1, NULL, $2, NULL, $3)',
    [o.id, 'UNKNOWN', o.at.toISOString()]);
}

export async function loadOrder(db: Db, id: string, forUpdate = false): Promise<OrderRow | null> {
  const { rows } = await db.query(`SELECT ${ORDER_COLS} FROM prescription_orders WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ? OrderRowSchema.parse(rows[0]) : null;
}

/** An account's orders, newest first, one page, with the total. */
export async function listOrders(db: Db, accountId: string, opts: { patientId?: string; offset: number; limit: number }): Promise<{ rows: OrderRow[]; count: number }> {
  const params: unknown[] = [accountId];
  let where = 'account_id = $1';
  if (opts.patientId !== undefined) {
    params.push(opts.patientId);
    where += ' AND patient_id = $2';
  }
  const [page, total] = await Promise.all([
    db.query(`SELECT ${ORDER_COLS} FROM prescription_orders WHERE ${where} ORDER BY created_at DESC, seq DESC OFFSET $${params.length + 1} LIMIT $${params.length + 2}`,
      [...params, opts.offset, opts.limit]),
    db.query<{ n: string | number }>(`SELECT count(*) AS n FROM prescription_orders WHERE ${where}`, params),
  ]);
  return { rows: page.rows.map((r) => OrderRowSchema.parse(r)), count: Number(total.rows[0]?.n ?? 0) };
}

/** A conversation's orders, newest first (at most `limit`: a visit writes a handful). */
export async function conversationOrders(db: Db, conversationId: string, limit = 100): Promise<OrderRow[]> {
  const { rows } = await db.query(`SELECT ${ORDER_COLS} FROM prescription_orders WHERE conversation_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`,
    [conversationId, limit]);
  return rows.map((r) => OrderRowSchema.parse(r));
}

async function itemsOf(db: Db, orderIds: readonly string[]): Promise<Map<string, ItemRow[]>> {
  const out = new Map<string, ItemRow[]>();
  if (!orderIds.length) return out;
  const { rows } = await db.query(
    'SELECT id, order_id, drug_name, drug_din, drug_strength, drug_form, quantity, instructions, has_refill, refill_quantity FROM prescription_items WHERE order_id = ANY($1) ORDER BY order_id, position',
    [orderIds]);
  for (const r of rows.map((x) => ItemRowSchema.parse(x))) out.set(r.order_id, [...(out.get(r.order_id) ?? []), r]);
  return out;
}

/** The spec's shape (service-spec.md, Prescription order) of each order, items included. */
export async function orderViews(db: Db, orders: readonly OrderRow[]): Promise<PrescriptionOrder[]> {
  const items = await itemsOf(db, orders.map((o) => o.id));
  return orders.map((o) => ({
    prescriptionOrderId: o.id,
    status: o.status,
    timestamp: o.created_at,
    prescriptions: (items.get(o.id) ?? []).map((i) => ({
      prescriptionId: i.id,
      drug: { name: i.drug_name, din: i.drug_din, strength: i.drug_strength, form: i.drug_form },
      quantity: i.quantity, instructions: i.instructions, hasRefill: i.has_refill, refillQuantity: i.refill_quantity,
    })),
    targetPharmacy: o.target_pharmacy,
    conversationId: o.conversation_id,
    patientId: o.patient_id,
    statusReason: o.status_reason,
    updatedAt: o.updated_at,
  }));
}

/** Records the partner's id for an order once it accepted it (idempotent). */
export async function setPartnerOrderId(db: Db, orderId: string, partnerOrderId: string): Promise<void> {
  await db.query('UPDATE prescription_orders SET partner_order_id = $2 WHERE id = $1 AND partner_order_id IS NULL', [orderId, partnerOrderId]);
}

/** Moves an order (the caller checked the move against the table and holds the row lock). */
export async function moveOrder(tx: Db, o: OrderRow, to: PrescriptionStatus, e: { eventId: string; sequence: number; reason: string | null; at: Date }): Promise<void> {
  await tx.query('UPDATE prescription_orders SET status = $2, status_reason = $3, partner_seq = $4, updated_at = $5 WHERE id = $1',
    [o.id, to, e.reason, e.sequence, e.at.toISOString()]);
  await tx.query('INSERT INTO prescription_status_changes (order_id, from_status, to_status, event_id, at) VALUES ($1, $2, $3, $4, $5)',
    [o.id, o.status, to, e.eventId, e.at.toISOString()]);
}

/** The order's status history, oldest first. */
export async function statusHistory(db: Db, orderId: string): Promise<{ from: string | null; to: string; eventId: string | null }[]> {
  const { rows } = await db.query<{ from_status: string | null; to_status: string; event_id: string | null }>(
    'SELECT from_status, to_status, event_id FROM prescription_status_changes WHERE order_id = $1 ORDER BY seq', [orderId]);
  return rows.map((r) => ({ from: r.from_status, to: r.to_status, eventId: r.event_id }));
}

export async function readCursor(db: Db, partner: string): Promise<string | null> {
  const { rows } = await db.query<{ cursor: string }>('SELECT cursor FROM pharmacy_partner_cursors WHERE partner = $1', [partner]);
  return rows[0]?.cursor ?? null;
}

export async function saveCursor(db: Db, partner: string, cursor: string, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO pharmacy_partner_cursors (partner, cursor, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (partner) DO UPDATE SET cursor = $2, updated_at = $3`, [partner, cursor, at.toISOString()]);
}
