import { randomBytes } from 'node:crypto';
import type { Db } from '../ports/db.ts';
import type { InitSignupWebhookParams, WebhookStatus } from './account.schema.ts';

interface Row extends Record<string, unknown> {
  session_key: string;
  webhook_url: string;
  webhook_token: string | null;
  delivery_context: unknown;
  conversation_session_key: string | null;
  linked_at: Date | string;
}

function toStatus(r: Row): WebhookStatus {
  return {
    configured: true,
    sessionKey: r.session_key,
    webhookUrl: r.webhook_url,
    hasSecret: r.webhook_token !== null,
    hasDeliveryContext: r.delivery_context !== null,
    conversationSessionKey: r.conversation_session_key ?? '',
    linkedAt: new Date(r.linked_at).toISOString(),
  };
}

/**
 * Webhook configurations (table `webhook_configs`, migration 012), one per account and session
 * key. PATCH semantics (service-spec.md, Webhooks): a field not given keeps its stored value.
 */
export function webhookConfigStore(db: Db) {
  return {
    /** Creates or updates the configuration for `sessionKey` (generated when absent). */
    async upsert(accountId: string, p: InitSignupWebhookParams & { webhookUrl: string }): Promise<WebhookStatus> {
      const sessionKey = p.sessionKey ?? `sk_${randomBytes(12).toString('base64url')}`;
      const { rows } = await db.query<Row>(
        `INSERT INTO webhook_configs (account_id, session_key, webhook_url, webhook_token, delivery_context, conversation_session_key)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6)
         ON CONFLICT (account_id, session_key) DO UPDATE SET
           webhook_url = EXCLUDED.webhook_url,
           webhook_token = COALESCE(EXCLUDED.webhook_token, webhook_configs.webhook_token),
           delivery_context = COALESCE(EXCLUDED.delivery_context, webhook_configs.delivery_context),
           conversation_session_key = COALESCE(EXCLUDED.conversation_session_key, webhook_configs.conversation_session_key),
           updated_at = now()
         RETURNING session_key, webhook_url, webhook_token, delivery_context, conversation_session_key, linked_at`,
        [accountId, sessionKey, p.webhookUrl, p.webhookToken ?? null,
          p.deliveryContext ? JSON.stringify(p.deliveryContext) : null, p.conversationSessionKey ?? null]);
      return toStatus(rows[0]!);
    },

    /** The account's configurations, newest first. */
    async list(accountId: string): Promise<WebhookStatus[]> {
      const { rows } = await db.query<Row>(
        `SELECT session_key, webhook_url, webhook_token, delivery_context, conversation_session_key, linked_at
         FROM webhook_configs WHERE account_id = $1 ORDER BY updated_at DESC`, [accountId]);
      return rows.map(toStatus);
    },
  };
}
