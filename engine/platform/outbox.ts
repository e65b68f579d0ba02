import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { NotificationBus } from '../ports/bus.ts';
import type { Db } from '../ports/db.ts';
import type { NewEvent, Outbox, StoredEvent } from '../ports/outbox.ts';

/** Bus topic woken by every event of a conversation (waitForReply listens here). */
export const conversationTopic = (consultationId: string): string => `conv:${consultationId}`;
/** Bus topic woken by every event of an account (its conversation list, its webhooks). */
export const userTopic = (userId: string): string => `user:${userId}`;

/** What a bus notification from the outbox carries: where to re-read from, never the event itself. */
export const OutboxNotificationSchema = z.object({ seq: z.string(), event: z.string(), status: z.string().nullable() });
export type OutboxNotification = z.infer<typeof OutboxNotificationSchema>;

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
const MAX_MESSAGE_CHARS = 2000;
/**
 * Keys that would carry what the patient or a clinician wrote. Events never hold message content
 * (service-spec.md, Events rules): a webhook receiver is not a place for health information.
 */
const CONTENT_KEYS = new Set(['text', 'content', 'body', 'messages', 'message', 'transcript', 'note']);

const RowSchema = z.object({
  seq: z.union([z.string(), z.number(), z.bigint()]).transform(String),
  event_id: z.string(),
  event: z.string(),
  user_id: z.string(),
  consultation_id: z.string().nullable(),
  status: z.string().nullable(),
  message: z.string(),
  data: z.record(z.string(), z.unknown()),
  created_at: z.union([z.date(), z.string()]).transform((v) => new Date(v).toISOString()),
});

function toEvent(row: unknown): StoredEvent {
  const r = RowSchema.parse(row);
  return {
    seq: r.seq, eventId: r.event_id, event: r.event, userId: r.user_id, consultationId: r.consultation_id,
    status: r.status, message: r.message, data: r.data, createdAt: r.created_at,
  };
}

function check(e: NewEvent): void {
  if (!e.event || !/^[a-z][a-z0-9_]{0,63}$/.test(e.event)) throw new Error(`outbox: event name ${JSON.stringify(e.event)} is not snake_case`);
  if (!e.userId) throw new Error('outbox: userId is required');
  if (e.message.length > MAX_MESSAGE_CHARS) throw new Error(`outbox: message over ${MAX_MESSAGE_CHARS} characters`);
  const leaked = Object.keys(e.data ?? {}).filter((k) => CONTENT_KEYS.has(k));
  if (leaked.length) throw new Error(`outbox: data must not carry message content (${leaked.join(', ')})`);
}

const COLUMNS = 'seq, event_id, event, user_id, consultation_id, status, message, data, created_at';

/**
 * The outbox over the Db port (table outbox_events, migration 002). `append` writes the event and
 * publishes a wake-up on the conversation's and the user's topics in the caller's transaction, so
 * both exist exactly when the change commits. Without a bus it only writes (tests, tools).
 *
 * `seq` is a bigserial: allocated at insert, so two concurrent transactions can commit out of seq
 * order. A reader of one conversation is safe as long as writers of that conversation serialize
 * on its row (they do: the state change locks it); a global reader (webhook delivery) must allow
 * for it (README, Platform design notes).
 */
export function createOutbox(db: Db, bus?: NotificationBus): Outbox {
  return {
    async append(tx, e) {
      check(e);
      const eventId = `evt_${randomBytes(12).toString('hex')}`;
      const { rows } = await tx.query(
        `INSERT INTO outbox_events (event_id, event, user_id, consultation_id, status, message, data)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb) RETURNING ${COLUMNS}`,
        [eventId, e.event, e.userId, e.consultationId ?? null, e.status ?? null, e.message, JSON.stringify(e.data ?? {})],
      );
      const stored = toEvent(rows[0]);
      if (bus) {
        const note: OutboxNotification = { seq: stored.seq, event: stored.event, status: stored.status };
        const payload = JSON.stringify(note);
        if (stored.consultationId) await bus.publish(conversationTopic(stored.consultationId), payload, tx);
        await bus.publish(userTopic(stored.userId), payload, tx);
      }
      return stored;
    },

    async list(opts) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (opts.afterSeq !== undefined) {
        if (!/^\d{1,19}$/.test(opts.afterSeq)) throw new Error('outbox: afterSeq must be a seq');
        params.push(opts.afterSeq);
        where.push(`seq > $${params.length}::bigint`);
      }
      if (opts.userId !== undefined) {
        params.push(opts.userId);
        where.push(`user_id = $${params.length}`);
      }
      if (opts.consultationId !== undefined) {
        params.push(opts.consultationId);
        where.push(`consultation_id = $${params.length}`);
      }
      params.push(Math.min(Math.max(1, Math.trunc(opts.limit ?? DEFAULT_LIMIT)), MAX_LIMIT));
      const { rows } = await db.query(
        `SELECT ${COLUMNS} FROM outbox_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq LIMIT $${params.length}`,
        params,
      );
      return rows.map(toEvent);
    },
  };
}
