/**
 * SQL for the payment tables (engine/storage/migrations/020_payments.sql), PostgreSQL dialect, on
 * the Db port (PGlite or PostgreSQL). Plain functions over a Db or a transaction; no logic beyond
 * the guarded status updates that make capture/release/lapse happen once.
 */
import type { Db } from '../ports/db.ts';
import type { Hold, HoldStatus, ProcessorKind, PurposeKind, SavedCard } from './payment-processor.ts';

export interface SessionRow {
  id: string;
  processor: ProcessorKind;
  mode: 'hold' | 'setup';
  userId: string;
  purposeKind: PurposeKind | null;
  purposeRef: string | null;
  amountCents: number;
  currency: string;
  status: 'open' | 'completed' | 'expired';
  formToken: string;
  attempts: number;
  externalId: string | null;
  holdId: string | null;
  expiresAt: Date;
  createdAt: Date;
}

type Row = Record<string, unknown>;
const date = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
const dateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : date(v));

function toSession(r: Row): SessionRow {
  return {
    id: String(r.id), processor: r.processor as ProcessorKind, mode: r.mode as SessionRow['mode'], userId: String(r.user_id),
    purposeKind: (r.purpose_kind ?? null) as PurposeKind | null, purposeRef: (r.purpose_ref ?? null) as string | null,
    amountCents: Number(r.amount_cents), currency: String(r.currency), status: r.status as SessionRow['status'],
    formToken: String(r.form_token), attempts: Number(r.attempts), externalId: (r.external_id ?? null) as string | null,
    holdId: (r.hold_id ?? null) as string | null, expiresAt: date(r.expires_at), createdAt: date(r.created_at),
  };
}

function toHold(r: Row): Hold {
  return {
    holdId: String(r.id), processor: r.processor as ProcessorKind,
    purpose: { kind: r.purpose_kind as PurposeKind, ref: String(r.purpose_ref), userId: String(r.user_id) },
    amountCents: Number(r.amount_cents), currency: String(r.currency), status: r.status as HoldStatus,
    brand: String(r.brand), last4: String(r.last4), authorizedAt: date(r.authorized_at), lapsesAt: date(r.lapses_at),
    capturedAt: dateOrNull(r.captured_at), releasedAt: dateOrNull(r.released_at), lapsedAt: dateOrNull(r.lapsed_at),
  };
}

export async function insertSession(db: Db, s: Omit<SessionRow, 'status' | 'attempts' | 'holdId'>): Promise<void> {
  await db.query(
    `INSERT INTO payment_sessions (id, processor, mode, user_id, purpose_kind, purpose_ref, amount_cents, currency, status,
       form_token, external_id, expires_at, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,'open',$9,$10,$11,$12)`,
    [s.id, s.processor, s.mode, s.userId, s.purposeKind, s.purposeRef, s.amountCents, s.currency, s.formToken, s.externalId, s.expiresAt, s.createdAt],
  );
}

export async function getSession(db: Db, id: string, lock = false): Promise<SessionRow | null> {
  const r = await db.query(`SELECT * FROM payment_sessions WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return r.rows[0] ? toSession(r.rows[0]) : null;
}

export async function getSessionByExternalId(db: Db, externalId: string): Promise<SessionRow | null> {
  const r = await db.query('SELECT * FROM payment_sessions WHERE external_id = $1', [externalId]);
  return r.rows[0] ? toSession(r.rows[0]) : null;
}

export async function setSessionExternalId(db: Db, id: string, externalId: string): Promise<void> {
  await db.query('UPDATE payment_sessions SET external_id = $2 WHERE id = $1', [id, externalId]);
}

export async function completeSession(tx: Db, id: string, holdId: string | null, now: Date): Promise<void> {
  await tx.query(`UPDATE payment_sessions SET status = 'completed', hold_id = $2, completed_at = $3 WHERE id = $1`, [id, holdId, now]);
}

export async function expireSession(tx: Db, id: string): Promise<void> {
  await tx.query(`UPDATE payment_sessions SET status = 'expired' WHERE id = $1 AND status = 'open'`, [id]);
}

/** Counts one more attempt on an open session; returns the new count. */
export async function bumpAttempts(tx: Db, id: string): Promise<number> {
  const r = await tx.query<{ attempts: number }>('UPDATE payment_sessions SET attempts = attempts + 1 WHERE id = $1 RETURNING attempts', [id]);
  return Number(r.rows[0]?.attempts ?? 0);
}

export async function insertHold(tx: Db, h: Hold & { sessionId: string | null; externalRef: string | null }): Promise<void> {
  await tx.query(
    `INSERT INTO payment_holds (id, processor, user_id, purpose_kind, purpose_ref, session_id, amount_cents, currency, status,
       brand, last4, external_ref, authorized_at, lapses_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,'authorized',$9,$10,$11,$12,$13)`,
    [h.holdId, h.processor, h.purpose.userId, h.purpose.kind, h.purpose.ref, h.sessionId, h.amountCents, h.currency,
      h.brand, h.last4, h.externalRef, h.authorizedAt, h.lapsesAt],
  );
}

export async function getHold(db: Db, id: string): Promise<Hold | null> {
  const r = await db.query('SELECT * FROM payment_holds WHERE id = $1', [id]);
  return r.rows[0] ? toHold(r.rows[0]) : null;
}

/** The processor's reference of a hold (Stripe PaymentIntent id), null on the embedded processor. */
export async function holdExternalRef(db: Db, id: string): Promise<string | null> {
  const r = await db.query<{ external_ref: string | null }>('SELECT external_ref FROM payment_holds WHERE id = $1', [id]);
  return r.rows[0]?.external_ref ?? null;
}

export async function getHoldByExternalRef(db: Db, ref: string): Promise<Hold | null> {
  const r = await db.query('SELECT * FROM payment_holds WHERE external_ref = $1', [ref]);
  return r.rows[0] ? toHold(r.rows[0]) : null;
}

/** The live hold of a purpose, else its newest. */
export async function holdForPurpose(db: Db, kind: string, ref: string): Promise<Hold | null> {
  const r = await db.query(
    `SELECT * FROM payment_holds WHERE purpose_kind = $1 AND purpose_ref = $2
     ORDER BY (status = 'authorized') DESC, authorized_at DESC, id DESC LIMIT 1`, [kind, ref]);
  return r.rows[0] ? toHold(r.rows[0]) : null;
}

const STAMP: Record<Exclude<HoldStatus, 'authorized'>, string> = { captured: 'captured_at', released: 'released_at', lapsed: 'lapsed_at' };

/**
 * Moves an authorised hold to `to`, guarded by its status (and, for capture, by not being past its
 * lapse time): of two concurrent calls exactly one gets the row back.
 */
export async function transitionHold(tx: Db, id: string, to: Exclude<HoldStatus, 'authorized'>, now: Date, force = false): Promise<Hold | null> {
  // `force`: the processor says so (Stripe cancelled the PaymentIntent itself), whatever our clock says.
  const guard = force ? '' : to === 'captured' ? ' AND lapses_at > $2' : to === 'lapsed' ? ' AND lapses_at <= $2' : '';
  const r = await tx.query(
    `UPDATE payment_holds SET status = $3, ${STAMP[to]} = $2 WHERE id = $1 AND status = 'authorized'${guard} RETURNING *`,
    [id, now, to]);
  return r.rows[0] ? toHold(r.rows[0]) : null;
}

/** Holds still authorised at or past their lapse time (a sweep after downtime). */
export async function dueLapses(db: Db, now: Date, limit = 100): Promise<string[]> {
  const r = await db.query<{ id: string }>(`SELECT id FROM payment_holds WHERE status = 'authorized' AND lapses_at <= $1 ORDER BY lapses_at LIMIT $2`, [now, limit]);
  return r.rows.map((x) => x.id);
}

export type LedgerKind = 'authorize' | 'capture' | 'release' | 'lapse' | 'failure' | 'card_saved';

export interface LedgerEntry {
  kind: LedgerKind;
  userId: string;
  holdId?: string | null;
  sessionId?: string | null;
  amountCents: number;
  currency: string;
  brand?: string | null;
  last4?: string | null;
  /** The failure code (`card_declined`, `insufficient_funds`, …) or the processor reference. */
  detail?: string | null;
  at: Date;
}

export async function appendLedger(tx: Db, e: LedgerEntry): Promise<void> {
  await tx.query(
    `INSERT INTO payment_ledger (kind, user_id, hold_id, session_id, amount_cents, currency, brand, last4, detail, created_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
    [e.kind, e.userId, e.holdId ?? null, e.sessionId ?? null, e.amountCents, e.currency, e.brand ?? null, e.last4 ?? null, e.detail ?? null, e.at]);
}

export async function ledgerFor(db: Db, filter: { holdId?: string; sessionId?: string; userId?: string }): Promise<(LedgerEntry & { seq: string })[]> {
  const r = await db.query(
    `SELECT * FROM payment_ledger WHERE ($1::text IS NULL OR hold_id = $1) AND ($2::text IS NULL OR session_id = $2)
       AND ($3::text IS NULL OR user_id = $3) ORDER BY seq`,
    [filter.holdId ?? null, filter.sessionId ?? null, filter.userId ?? null]);
  return r.rows.map((x) => ({
    seq: String(x.seq), kind: x.kind as LedgerKind, userId: String(x.user_id), holdId: (x.hold_id ?? null) as string | null,
    sessionId: (x.session_id ?? null) as string | null, amountCents: Number(x.amount_cents), currency: String(x.currency),
    brand: (x.brand ?? null) as string | null, last4: (x.last4 ?? null) as string | null, detail: (x.detail ?? null) as string | null, at: date(x.created_at),
  }));
}

export interface MethodRow extends SavedCard {
  processor: ProcessorKind;
  userId: string;
  externalRef: string | null;
  declinesCharges: boolean;
}

export async function insertMethod(tx: Db, m: MethodRow): Promise<void> {
  await tx.query(
    `INSERT INTO payment_methods (id, processor, user_id, brand, last4, exp_month, exp_year, external_ref, declines_charges, created_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
    [m.paymentMethodId, m.processor, m.userId, m.brand, m.last4, m.expMonth, m.expYear, m.externalRef, m.declinesCharges, m.createdAt]);
}

export async function newestMethod(db: Db, userId: string, processor: ProcessorKind): Promise<MethodRow | null> {
  const r = await db.query(
    `SELECT * FROM payment_methods WHERE user_id = $1 AND processor = $2 AND removed_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1`,
    [userId, processor]);
  const x = r.rows[0];
  if (!x) return null;
  return {
    paymentMethodId: String(x.id), processor: x.processor as ProcessorKind, userId: String(x.user_id), brand: String(x.brand),
    last4: String(x.last4), expMonth: Number(x.exp_month), expYear: Number(x.exp_year), externalRef: (x.external_ref ?? null) as string | null,
    declinesCharges: Boolean(x.declines_charges), createdAt: date(x.created_at),
  };
}

export async function getCustomer(db: Db, userId: string, processor: ProcessorKind): Promise<string | null> {
  const r = await db.query<{ external_id: string }>('SELECT external_id FROM payment_customers WHERE user_id = $1 AND processor = $2', [userId, processor]);
  return r.rows[0]?.external_id ?? null;
}

/** Records the customer unless one was recorded meanwhile; returns the one that stands. */
export async function putCustomer(db: Db, userId: string, processor: ProcessorKind, externalId: string): Promise<string> {
  await db.query('INSERT INTO payment_customers (user_id, processor, external_id) VALUES ($1,$2,$3) ON CONFLICT DO NOTHING', [userId, processor, externalId]);
  return (await getCustomer(db, userId, processor)) ?? externalId;
}
