/**
 * The deliverer: sends every pending webhook delivery (docs/webhooks.md, "How delivery works").
 *
 * Rows of `webhook_deliveries` are written by a trigger in the transaction that appends the event
 * to the outbox (migration 040), so the queue holds a delivery exactly when its event committed,
 * whatever order events commit in. The deliverer claims due rows (`FOR UPDATE SKIP LOCKED`, so
 * several processes on one PostgreSQL share the work), sends each once through the outbound
 * guard, and writes the outcome into the same row, which is the user's delivery log.
 *
 * Woken on commit by the trigger's NOTIFY (`cb_webhook_deliveries`); a poll is the backstop and
 * also reclaims a row left `sending` by a process that died mid-attempt, once its lease is over.
 * No network call ever happens inside a database transaction.
 */
import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.ts';
import type { Db } from '../ports/db.ts';
import type { Outbound } from '../ports/outbound.ts';
import { pruneDeliveries } from './webhook-delivery-log.ts';
import { DELIVERY_TIMEOUT_MS, sendDelivery, type DeliveryInput, type DeliveryOutcome } from './webhook-delivery.ts';

export const DELIVERY_CHANNEL = 'cb_webhook_deliveries';

export interface DelivererOptions {
  db: Db;
  outbound: Outbound;
  clock: Clock;
  log: Logger;
  /** A claim older than this is presumed dead and claimed again (default 30 s; more than the 5 s attempt). */
  leaseMs?: number;
  /** Backstop poll (default 1 s). */
  pollMs?: number;
  /**
   * Deliveries in flight at once in this process (default 16, the guard's connections per origin):
   * a delivery waiting for a socket would spend its 5 s on the wait, so the rest wait as rows.
   */
  concurrency?: number;
}

export interface Deliverer {
  /** Looks for due deliveries now. */
  kick(): void;
  /** Stops claiming and waits for the attempts in flight (each ends within the 5 s limit). */
  stop(): Promise<void>;
}

interface Claimed extends Record<string, unknown> {
  id: string | number;
  delivery_id: string;
  session_key: string;
  webhook_url: string;
  webhook_token: string | null;
  delivery_context: DeliveryInput['deliveryContext'];
  conversation_session_key: string | null;
  signing_secret: string | null;
  event: string;
  consultation_id: string | null;
  status: string | null;
  message: string;
  data: Record<string, unknown> | null;
  created_at: Date | string;
}

/** Starts the deliverer on `db`. */
export async function startWebhookDeliverer(o: DelivererOptions): Promise<Deliverer> {
  const leaseMs = o.leaseMs ?? Math.max(30_000, DELIVERY_TIMEOUT_MS * 2);
  const concurrency = o.concurrency ?? 16;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let pumping = false;
  let again = false;

  const claim = async (n: number): Promise<Claimed[]> => {
    const { rows } = await o.db.query<Claimed>(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
         WHERE state = 'pending' OR (state = 'sending' AND claimed_at < now() - make_interval(secs => $1::double precision / 1000))
         ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE webhook_deliveries d
         SET state = 'sending', claimed_at = now(), attempts = d.attempts + 1, webhook_url = c.webhook_url
       FROM due, webhook_configs c, outbox_events e
       WHERE d.id = due.id AND c.account_id = d.account_id AND c.session_key = d.session_key AND e.seq = d.event_seq
       RETURNING d.id, d.delivery_id, d.session_key, c.webhook_url, c.webhook_token, c.delivery_context, c.conversation_session_key,
         c.signing_secret, e.event, e.consultation_id, e.status, e.message, e.data, e.created_at`,
      [leaseMs, n]);
    return rows;
  };

  // Outcomes are written in batches: one UPDATE for all that finished meanwhile (PGlite has one
  // connection, shared with the requests being served). A crash before the write leaves the row
  // `sending`, which the lease then re-attempts, as for a crash mid-attempt.
  let outcomes: { id: string | number; out: DeliveryOutcome }[] = [];
  let flushing: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    while (outcomes.length) {
      const batch = outcomes;
      outcomes = [];
      await o.db.query(
        `UPDATE webhook_deliveries d SET state = v.state, finished_at = now(), status_code = v.code, error = v.err, latency_ms = v.ms
         FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::int[]) AS v(id, state, code, err, ms)
         WHERE d.id = v.id AND d.state = 'sending'`,
        [batch.map((b) => String(b.id)), batch.map((b) => (b.out.ok ? 'delivered' : 'failed')), batch.map((b) => b.out.statusCode),
          batch.map((b) => b.out.error), batch.map((b) => b.out.latencyMs)]);
    }
  };
  // An outcome pushed after the loop's last look is picked up by the restart in finally.
  const startFlush = (): Promise<void> => (flushing ??= flush().finally(() => {
    flushing = undefined;
    if (outcomes.length) void startFlush().catch((err: unknown) => o.log.error({ err }, 'webhook outcomes not recorded'));
  }));
  const record = (id: string | number, out: DeliveryOutcome): Promise<void> => {
    outcomes.push({ id, out });
    return startFlush();
  };

  const deliver = async (r: Claimed): Promise<void> => {
    const out = await sendDelivery(o.outbound, {
      deliveryId: r.delivery_id, event: r.event, message: r.message, status: r.status, consultationId: r.consultation_id,
      timestamp: new Date(r.created_at).toISOString(), data: r.data ?? {}, sessionKey: r.session_key,
      conversationSessionKey: r.conversation_session_key, deliveryContext: r.delivery_context, webhookUrl: r.webhook_url,
      webhookToken: r.webhook_token, signingSecret: r.signing_secret ?? '',
    }, o.clock.now());
    if (!out.ok) o.log.info({ deliveryId: r.delivery_id, event: r.event, statusCode: out.statusCode, error: out.error }, 'webhook delivery failed');
    // The slot is free once the attempt is over; the outcome is written with the next batch.
    record(r.id, out).catch((err: unknown) => o.log.error({ err, deliveryId: r.delivery_id }, 'webhook outcome not recorded'));
  };

  // Claimed rows wait here for a free slot: claims come in batches (one query for up to
  // `window` rows) rather than one query per freed slot. A claimed row waits seconds at most,
  // far inside its lease.
  const window = concurrency * 4;
  const queue: Claimed[] = [];
  const drain = (): void => {
    while (inFlight.size < concurrency && queue.length) {
      const r = queue.shift()!;
      const p: Promise<void> = deliver(r)
        .catch((err: unknown) => o.log.error({ err, deliveryId: r.delivery_id }, 'webhook delivery failed to run'))
        .finally(() => {
          inFlight.delete(p);
          drain();
          if (queue.length < concurrency) kick();
        });
      inFlight.add(p);
    }
  };

  const pump = async (): Promise<void> => {
    if (pumping) { again = true; return; }
    pumping = true;
    try {
      do {
        again = false;
        while (!stopped && queue.length + inFlight.size < window) {
          const rows = await claim(window - queue.length - inFlight.size);
          queue.push(...rows);
          drain();
          if (rows.length === 0) break;
        }
      } while (again && !stopped);
    } catch (err) {
      o.log.warn({ err }, 'webhook deliveries: claim failed; retrying on the next poll');
    } finally {
      pumping = false;
    }
  };

  const kick = (): void => { if (!stopped) void pump(); };

  const unlisten = o.db.listen ? await o.db.listen(DELIVERY_CHANNEL, kick, kick) : undefined;
  const timer = setInterval(kick, o.pollMs ?? 1000);
  timer.unref();
  // The log keeps 30 days; pruned at start and daily.
  const prune = () => { if (!stopped) pruneDeliveries(o.db).catch((err: unknown) => o.log.warn({ err }, 'webhook log prune failed')); };
  const daily = setInterval(prune, 24 * 3600_000);
  daily.unref();
  prune();
  kick();

  let stopping: Promise<void> | undefined;
  return {
    kick,
    stop: () => (stopping ??= (async () => {
      stopped = true;
      clearInterval(timer);
      clearInterval(daily);
      await unlisten?.();
      while (pumping) await new Promise((r) => setTimeout(r, 10));
      // Claimed rows not yet started are handed back at once rather than after their lease.
      const unsent = queue.splice(0).map((r) => String(r.id));
      if (unsent.length) {
        await o.db.query(`UPDATE webhook_deliveries SET state = 'pending', attempts = attempts - 1 WHERE id = ANY($1::bigint[]) AND state = 'sending'`, [unsent])
          .catch((err: unknown) => o.log.warn({ err }, 'webhook deliveries not handed back; their lease will'));
      }
      await Promise.allSettled([...inFlight]);
      await flushing?.catch(() => undefined);
      await flush();
    })()),
  };
}
