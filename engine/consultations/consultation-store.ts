/**
 * Conversation storage over the Db port (PostgreSQL dialect: PGlite and PostgreSQL alike), and the
 * one function that moves a conversation's status (`applyTransition`), inside the transaction that
 * writes the move's event to the outbox.
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import type { Db } from '../ports/db.ts';
import type { Outbox } from '../ports/outbox.ts';
import type { NotificationBus } from '../ports/bus.ts';
import { findTransition, type ConversationStatus, type Trigger } from './consultation-status.ts';
import type { Message, PaymentGate } from './consultation.schema.ts';
import type { InformationNeed, Acuity } from '../triage/triage.port.ts';

export interface TriageState { acuity: Acuity; redFlags: string[]; summary: string | null; engine?: string }

export interface ConversationRow {
  id: string;
  accountId: string;
  patientId: string;
  title: string;
  status: ConversationStatus;
  region: string;
  requestRegion: string | null;
  requestSeq: number;
  triage: TriageState | null;
  informationNeed: InformationNeed[];
  informationNeedAsOf: string | null;
  paymentGate: PaymentGate | null;
  lastSeenSeq: number;
  lastActivityAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export interface MessageRow extends Message {
  seq: number;
  requestSeq: number;
  meta: { asked?: string[]; engine?: string; answersSeq?: number };
}

export interface VisitRow { id: string; providerName: string; startedAt: Date; closedAt: Date | null; hasNotes: boolean }

/** A random id with a type prefix: 120 bits, URL-safe. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(15).toString('base64url')}`;
}

/** The bus topic a conversation's waiters listen on. */
export function conversationTopic(id: string): string {
  return `consultation:${id}`;
}

/**
 * The bus topic woken by every message written to a conversation, the patient's own included: for
 * watchers that show the whole thread (the clinician console), not for waiters that end on a reply.
 */
export function threadTopic(id: string): string {
  return `thread:${id}`;
}

const CONV_COLS = `id, account_id, patient_id, title, status, region, request_region, request_seq, triage,
  information_need, information_need_as_of, payment_gate, last_seen_seq, last_activity_at, created_at, updated_at`;

function toConversation(r: Record<string, unknown>): ConversationRow {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    patientId: r.patient_id as string,
    title: r.title as string,
    status: r.status as ConversationStatus,
    region: r.region as string,
    requestRegion: (r.request_region as string | null) ?? null,
    requestSeq: Number(r.request_seq),
    triage: (r.triage as TriageState | null) ?? null,
    informationNeed: (r.information_need as InformationNeed[] | null) ?? [],
    informationNeedAsOf: (r.information_need_as_of as string | null) ?? null,
    paymentGate: (r.payment_gate as PaymentGate | null) ?? null,
    lastSeenSeq: Number(r.last_seen_seq),
    lastActivityAt: new Date(r.last_activity_at as string),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}

const MSG_COLS = 'seq, id, request_seq, type, sender, sender_id, content, file_name, meta, created_at';

function toMessage(r: Record<string, unknown>): MessageRow {
  const m: MessageRow = {
    seq: Number(r.seq),
    id: r.id as string,
    requestSeq: Number(r.request_seq),
    type: r.type as Message['type'],
    sender: r.sender as Message['sender'],
    senderId: r.sender_id as string,
    content: r.content as string,
    timestamp: new Date(r.created_at as string).toISOString(),
    meta: (r.meta as MessageRow['meta'] | null) ?? {},
  };
  if (r.file_name) m.fileName = r.file_name as string;
  return m;
}

/** The public shape of a stored message (no seq, no meta). */
export function publicMessage(m: MessageRow): Message {
  const out: Message = { id: m.id, type: m.type, content: m.content, sender: m.sender, timestamp: m.timestamp, senderId: m.senderId };
  if (m.fileName) out.fileName = m.fileName;
  return out;
}

export async function insertConversation(tx: Db, c: Omit<ConversationRow, 'triage' | 'informationNeed' | 'informationNeedAsOf' | 'paymentGate' | 'lastSeenSeq' | 'updatedAt' | 'lastActivityAt'>): Promise<void> {
  await tx.query(
    `INSERT INTO conversations (id, account_id, patient_id, title, status, region, request_region, request_seq, last_activity_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $9)`,
    [c.id, c.accountId, c.patientId, c.title, c.status, c.region, c.requestRegion, c.requestSeq, c.createdAt.toISOString()],
  );
}

/** The caller's conversation, or null: another account's conversation is indistinguishable from none. */
export async function findConversation(db: Db, accountId: string, id: string, forUpdate = false): Promise<ConversationRow | null> {
  const { rows } = await db.query(`SELECT ${CONV_COLS} FROM conversations WHERE id = $1 AND account_id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [id, accountId]);
  return rows[0] ? toConversation(rows[0]) : null;
}

/** As findConversation, but a missing one is the 404 of the API. */
export async function requireConversation(db: Db, accountId: string, id: string, forUpdate = false): Promise<ConversationRow> {
  const c = await findConversation(db, accountId, id, forUpdate);
  if (!c) throw new AppError('not_found', 'No conversation with this id on your account.', { field: 'conversationId' });
  return c;
}

/** By id alone, for jobs (which carry no caller). */
export async function loadConversation(db: Db, id: string, forUpdate = false): Promise<ConversationRow | null> {
  const { rows } = await db.query(`SELECT ${CONV_COLS} FROM conversations WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ? toConversation(rows[0]) : null;
}

export async function listConversations(db: Db, accountId: string, limit: number): Promise<{ rows: ConversationRow[]; total: number }> {
  const [page, count] = await Promise.all([
    db.query(`SELECT ${CONV_COLS} FROM conversations WHERE account_id = $1 ORDER BY last_activity_at DESC, id DESC LIMIT $2`, [accountId, limit]),
    db.query<{ n: string }>('SELECT count(*)::text AS n FROM conversations WHERE account_id = $1', [accountId]),
  ]);
  return { rows: page.rows.map(toConversation), total: Number(count.rows[0]?.n ?? 0) };
}

export interface NewMessage {
  /** A pre-assigned id (a media upload names its message before the bytes arrive); default a new one. */
  id?: string;
  conversationId: string;
  requestSeq: number;
  sender: Message['sender'];
  senderId: string;
  content: string;
  type?: Message['type'];
  fileName?: string | null;
  meta?: MessageRow['meta'];
  at: Date;
}

export async function insertMessage(tx: Db, m: NewMessage): Promise<MessageRow> {
  const { rows } = await tx.query(
    `INSERT INTO conversation_messages (id, conversation_id, request_seq, type, sender, sender_id, content, file_name, meta, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${MSG_COLS}`,
    [m.id ?? newId('msg'), m.conversationId, m.requestSeq, m.type ?? 'text', m.sender, m.senderId, m.content, m.fileName ?? null, JSON.stringify(m.meta ?? {}), m.at.toISOString()],
  );
  return toMessage(rows[0]!);
}

/** Newest `limit` messages (oldest first in the result) after `afterSeq`, and how many older ones were left out. */
export async function recentMessages(db: Db, conversationId: string, limit: number, afterSeq = 0): Promise<{ messages: MessageRow[]; omitted: number }> {
  // The window count is taken before LIMIT: every message after afterSeq, in the same query.
  const page = await db.query(
    `SELECT ${MSG_COLS}, count(*) OVER ()::text AS total FROM conversation_messages WHERE conversation_id = $1 AND seq > $2 ORDER BY seq DESC LIMIT $3`,
    [conversationId, afterSeq, limit]);
  const messages = page.rows.map(toMessage).reverse();
  return { messages, omitted: Math.max(0, Number(page.rows[0]?.total ?? 0) - messages.length) };
}

export async function messagesAfter(db: Db, conversationId: string, afterSeq: number): Promise<MessageRow[]> {
  const { rows } = await db.query(`SELECT ${MSG_COLS} FROM conversation_messages WHERE conversation_id = $1 AND seq > $2 ORDER BY seq LIMIT 200`, [conversationId, afterSeq]);
  return rows.map(toMessage);
}

/** Every message of one request, oldest first (what triage reads). */
export async function requestMessages(db: Db, conversationId: string, requestSeq: number): Promise<MessageRow[]> {
  const { rows } = await db.query(`SELECT ${MSG_COLS} FROM conversation_messages WHERE conversation_id = $1 AND request_seq = $2 ORDER BY seq`, [conversationId, requestSeq]);
  return rows.map(toMessage);
}

export async function findMessage(db: Db, conversationId: string, id: string): Promise<MessageRow | null> {
  const { rows } = await db.query(`SELECT ${MSG_COLS} FROM conversation_messages WHERE conversation_id = $1 AND id = $2`, [conversationId, id]);
  return rows[0] ? toMessage(rows[0]) : null;
}

export async function latestMessage(db: Db, conversationId: string): Promise<MessageRow | null> {
  const { rows } = await db.query(`SELECT ${MSG_COLS} FROM conversation_messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT 1`, [conversationId]);
  return rows[0] ? toMessage(rows[0]) : null;
}

export async function lastMessages(db: Db, ids: string[]): Promise<Map<string, MessageRow>> {
  if (!ids.length) return new Map();
  const { rows } = await db.query(
    `SELECT DISTINCT ON (conversation_id) conversation_id, ${MSG_COLS} FROM conversation_messages
     WHERE conversation_id = ANY($1::text[]) ORDER BY conversation_id, seq DESC`, [ids]);
  return new Map(rows.map((r) => [r.conversation_id as string, toMessage(r)]));
}

export async function listVisits(db: Db, conversationId: string): Promise<VisitRow[]> {
  const { rows } = await db.query(
    'SELECT id, provider_name, started_at, closed_at, has_notes FROM conversation_visits WHERE conversation_id = $1 ORDER BY started_at', [conversationId]);
  return rows.map((r) => ({
    id: r.id as string, providerName: r.provider_name as string, startedAt: new Date(r.started_at as string),
    closedAt: r.closed_at ? new Date(r.closed_at as string) : null, hasNotes: Boolean(r.has_notes),
  }));
}

export async function visitCounts(db: Db, ids: string[]): Promise<Map<string, { past: number; active: boolean }>> {
  if (!ids.length) return new Map();
  const { rows } = await db.query<{ conversation_id: string; past: string; active: string }>(
    `SELECT conversation_id, count(*) FILTER (WHERE closed_at IS NOT NULL)::text AS past, count(*) FILTER (WHERE closed_at IS NULL)::text AS active
     FROM conversation_visits WHERE conversation_id = ANY($1::text[]) GROUP BY conversation_id`, [ids]);
  return new Map(rows.map((r) => [r.conversation_id, { past: Number(r.past), active: Number(r.active) > 0 }]));
}

/** Records that the owner has been shown messages up to `seq` (the read-first gate). */
export async function markSeen(db: Db, conversationId: string, seq: number): Promise<void> {
  await db.query('UPDATE conversations SET last_seen_seq = GREATEST(last_seen_seq, $2) WHERE id = $1', [conversationId, seq]);
}

export interface PlatformWrite { outbox: Outbox; bus: NotificationBus }

/**
 * Records activity and wakes the conversation's waiters when `tx` commits. `notify: false` for a
 * change no waiter ends on (the patient's own message: a wait ends on a reply or a status move),
 * which spares every waiter a re-read; the thread's watchers (threadTopic) are woken either way.
 * One payload for every wake-up, so that PostgreSQL folds the notifications of one transaction.
 */
export async function touch(tx: Db, p: PlatformWrite, conversationId: string, at: Date, opts: { notify?: boolean } = {}): Promise<void> {
  await tx.query('UPDATE conversations SET last_activity_at = $2, updated_at = $2 WHERE id = $1', [conversationId, at.toISOString()]);
  await p.bus.publish(threadTopic(conversationId), 'changed', tx);
  if (opts.notify !== false) await p.bus.publish(conversationTopic(conversationId), 'changed', tx);
}

export interface TransitionOptions {
  /** Notification text for the event (service-spec.md, Events: a human-readable imperative). */
  message: string;
  /** Extra column values written with the move (e.g. request_seq, payment_gate). */
  set?: Partial<Record<'request_seq' | 'request_region' | 'payment_gate' | 'triage' | 'information_need' | 'information_need_as_of', unknown>>;
  at: Date;
}

/**
 * Moves `conv` by `trigger` inside `tx` (the conversation row must be locked FOR UPDATE in `tx`),
 * writing the move's event to the outbox in the same transaction. A move the table does not have
 * is refused with `invalid_transition` (409) and nothing is written.
 */
export async function applyTransition(tx: Db, p: PlatformWrite, conv: ConversationRow, trigger: Trigger, opts: TransitionOptions): Promise<ConversationRow> {
  const t = findTransition(conv.status, trigger);
  if (!t) {
    throw new AppError('invalid_transition', `A conversation in ${conv.status} cannot ${trigger.replaceAll('_', ' ')}.`, {
      code: `${conv.status}:${trigger}`, extra: { status: conv.status },
    });
  }
  const cols: string[] = ['status = $2', 'updated_at = $3', 'last_activity_at = $3'];
  const params: unknown[] = [conv.id, t.to, opts.at.toISOString()];
  for (const [k, v] of Object.entries(opts.set ?? {})) {
    params.push(v !== null && typeof v === 'object' ? JSON.stringify(v) : v);
    cols.push(`${k} = $${params.length}`);
  }
  params.push(conv.status);
  const { rows } = await tx.query(`UPDATE conversations SET ${cols.join(', ')} WHERE id = $1 AND status = $${params.length} RETURNING ${CONV_COLS}`, params);
  // The row is locked by the caller, so the status cannot have moved; a miss is our bug.
  if (!rows[0]) throw new Error(`conversation ${conv.id} moved under a lock`);
  await p.outbox.append(tx, {
    event: t.event, userId: conv.accountId, consultationId: conv.id, status: t.to, message: opts.message,
    data: { previousStatus: conv.status, trigger },
  });
  await p.bus.publish(conversationTopic(conv.id), 'changed', tx);
  return toConversation(rows[0]);
}
