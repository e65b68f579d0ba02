import { randomBytes } from 'node:crypto';
import type { Db } from '../ports/db.ts';
import type { DeliveryContext, WebhookParams, WebhookStatus } from './webhook.schema.ts';

interface Row extends Record<string, unknown> {
  session_key: string;
  webhook_url: string;
  webhook_token: string | null;
  delivery_context: unknown;
  conversation_session_key: string | null;
  signing_secret: string | null;
  linked_at: Date | string;
}

/** A stored configuration with its secrets (never returned to a caller as it is). */
export interface WebhookConfig {
  sessionKey: string;
  webhookUrl: string;
  webhookToken: string | null;
  deliveryContext: DeliveryContext | null;
  conversationSessionKey: string | null;
  signingSecret: string;
  linkedAt: string;
}

const HINT = 'Events are POSTed to webhookUrl with Authorization: Bearer <webhookToken> and Standard Webhooks signature headers; answer 2xx within 5 seconds (no retries). GET /api/webhook/deliveries shows the last deliveries.';

/** The status resource (service-spec.md, Webhook configuration) of a stored configuration. */
export function toStatus(c: WebhookConfig): WebhookStatus {
  return {
    configured: true,
    sessionKey: c.sessionKey,
    webhookUrl: c.webhookUrl,
    hasSecret: c.webhookToken !== null,
    hasDeliveryContext: c.deliveryContext !== null,
    conversationSessionKey: c.conversationSessionKey ?? '',
    linkedAt: c.linkedAt,
    hint: HINT,
  };
}

/** The resource when nothing is configured. */
export const NOT_CONFIGURED: WebhookStatus = {
  configured: false, sessionKey: '', webhookUrl: '', hasSecret: false, hasDeliveryContext: false, conversationSessionKey: '', linkedAt: '',
  hint: 'No webhook is registered: call register_webhook (POST /api/webhook) with webhookUrl to receive events.',
};

function toConfig(r: Row): WebhookConfig {
  return {
    sessionKey: r.session_key,
    webhookUrl: r.webhook_url,
    webhookToken: r.webhook_token,
    deliveryContext: (r.delivery_context ?? null),
    conversationSessionKey: r.conversation_session_key,
    signingSecret: r.signing_secret ?? '',
    linkedAt: new Date(r.linked_at).toISOString(),
  };
}

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A generated session key (service-spec.md, Webhooks: "auto-generated if omitted"). */
export function newSessionKey(): string {
  return `sk_${randomBytes(12).toString('base64url')}`;
}

const COLS = 'session_key, webhook_url, webhook_token, delivery_context, conversation_session_key, signing_secret, linked_at';

/**
 * Webhook configurations (table `webhook_configs`, migrations 012 and 040), one per account and
 * session key. PATCH semantics (service-spec.md, Webhooks): a field not given keeps its stored value.
 */
export function webhookConfigStore(db: Db) {
  return {
    async get(accountId: string, sessionKey: string): Promise<WebhookConfig | null> {
      const { rows } = await db.query<Row>(`SELECT ${COLS} FROM webhook_configs WHERE account_id = $1 AND session_key = $2`, [accountId, sessionKey]);
      return rows[0] ? toConfig(rows[0]) : null;
    },

    /**
     * Creates or updates the configuration for `p.sessionKey`, serialized per (account, session
     * key) by a transaction-scoped advisory lock, so the secret decided here is the one stored:
     * `secret.rotate` replaces the stored signing secret with `secret.candidate`; otherwise a
     * stored secret is kept and `candidate` is used only where there is none (a new configuration,
     * or one written by init_signup before signing secrets existed). Two simultaneous creates of
     * one session key therefore store the first one's secret and both callers learn that one,
     * instead of the second silently replacing the secret the first was told.
     * Returns the stored configuration and whether this call created it.
     */
    async save(accountId: string, p: WebhookParams & { sessionKey: string }, secret: { candidate: string; rotate: boolean } | null): Promise<{ config: WebhookConfig; created: boolean }> {
      return db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhook_configs:${accountId}:${p.sessionKey}`]);
        const { rows: cur } = await tx.query<{ signing_secret: string | null }>(
          'SELECT signing_secret FROM webhook_configs WHERE account_id = $1 AND session_key = $2', [accountId, p.sessionKey]);
        const stored = cur[0]?.signing_secret || null;
        const signingSecret = secret?.rotate ? secret.candidate : stored ?? secret?.candidate ?? newSigningSecret();
        const { rows } = await tx.query<Row & { created: boolean }>(
          `INSERT INTO webhook_configs (account_id, session_key, webhook_url, webhook_token, delivery_context, conversation_session_key, signing_secret)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
           ON CONFLICT (account_id, session_key) DO UPDATE SET
             webhook_url = EXCLUDED.webhook_url,
             webhook_token = COALESCE(EXCLUDED.webhook_token, webhook_configs.webhook_token),
             delivery_context = COALESCE(EXCLUDED.delivery_context, webhook_configs.delivery_context),
             conversation_session_key = COALESCE(EXCLUDED.conversation_session_key, webhook_configs.conversation_session_key),
             signing_secret = EXCLUDED.signing_secret,
             updated_at = now()
           RETURNING ${COLS}, (xmax = 0) AS created`,
          [accountId, p.sessionKey, p.webhookUrl, p.webhookToken ?? null,
            p.deliveryContext ? JSON.stringify(p.deliveryContext) : null, p.conversationSessionKey ?? null, signingSecret]);
        const row = rows[0]!;
        return { config: toConfig(row), created: row.created };
      });
    },

    /** The account's configurations (or the one named), most recently updated first. */
    async list(accountId: string, sessionKey?: string): Promise<WebhookConfig[]> {
      const { rows } = await db.query<Row>(
        `SELECT ${COLS} FROM webhook_configs WHERE account_id = $1 AND ($2::text IS NULL OR session_key = $2)
         ORDER BY updated_at DESC, session_key`, [accountId, sessionKey ?? null]);
      return rows.map(toConfig);
    },
  };
}
