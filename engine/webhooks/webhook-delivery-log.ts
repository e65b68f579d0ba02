import type { Db } from '../ports/db.ts';
import { DELIVERY_STATES, type WebhookDelivery } from './webhook.schema.ts';

interface Row extends Record<string, unknown> {
  delivery_id: string;
  event: string;
  consultation_id: string | null;
  session_key: string;
  webhook_url: string | null;
  state: string;
  status_code: number | null;
  error: string | null;
  latency_ms: number | null;
  attempts: number;
  event_at: Date | string;
  finished_at: Date | string | null;
}

const iso = (v: Date | string) => new Date(v).toISOString();

/**
 * The user's delivery log (GET /api/webhook/deliveries): the newest deliveries of the account,
 * with the outcome of each. Never the body, the bearer token or the signing secret.
 */
export async function listDeliveries(db: Db, accountId: string, o: { sessionKey?: string | undefined; limit: number }): Promise<WebhookDelivery[]> {
  const { rows } = await db.query<Row>(
    `SELECT d.delivery_id, e.event, e.consultation_id, d.session_key, d.webhook_url, d.state, d.status_code, d.error,
            d.latency_ms, d.attempts, d.event_at, d.finished_at
     FROM webhook_deliveries d JOIN outbox_events e ON e.seq = d.event_seq
     WHERE d.account_id = $1 AND ($2::text IS NULL OR d.session_key = $2)
     ORDER BY d.id DESC LIMIT $3`, [accountId, o.sessionKey ?? null, o.limit]);
  return rows.map((r) => ({
    deliveryId: r.delivery_id,
    event: r.event,
    consultationId: r.consultation_id,
    sessionKey: r.session_key,
    webhookUrl: r.webhook_url,
    state: (DELIVERY_STATES as readonly string[]).includes(r.state) ? r.state as WebhookDelivery['state'] : 'failed',
    statusCode: r.status_code,
    error: r.error,
    latencyMs: r.latency_ms,
    attempts: r.attempts,
    eventAt: iso(r.event_at),
    finishedAt: r.finished_at ? iso(r.finished_at) : null,
  }));
}

/** Drops log rows older than `days` whose attempt is over (the log is for recent deliveries). */
export async function pruneDeliveries(db: Db, days = 30): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM webhook_deliveries WHERE state IN ('delivered', 'failed') AND finished_at < now() - make_interval(days => $1)`, [days]);
  return rowCount;
}
