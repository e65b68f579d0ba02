/**
 * Webhook operations (service-spec.md, Webhooks; issue 39, item 2): register_webhook
 * (POST /api/webhook), the status (GET /api/webhook) and, beyond the spec, the delivery log
 * (GET /api/webhook/deliveries). Deliveries themselves: webhook-deliverer.ts.
 */
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import type { HandlerContext } from '../core/context.ts';
import { requireAccount } from '../profile/onboarding.ts';
import type { Outbound } from '../ports/outbound.ts';
import { NOT_CONFIGURED, toStatus, webhookConfigStore } from './webhook-config-store.ts';
import { listDeliveries } from './webhook-delivery-log.ts';
import { saveWebhook, type WebhookSaveDeps } from './webhook-register.ts';
import {
  GetWebhookInputSchema, GetWebhookOutputSchema, ListDeliveriesInputSchema, ListDeliveriesOutputSchema,
  RegisterWebhookInputSchema, RegisterWebhookOutputSchema,
} from './webhook.schema.ts';

/** What saving needs from the handler context; the outbound guard is absent only on the pricing-only host. */
export function webhookSaveDeps(ctx: HandlerContext): WebhookSaveDeps {
  const outbound: Outbound | undefined = ctx.ports.outbound;
  if (!outbound) throw new Error('webhooks need ports.outbound (api/app.ts creates it)');
  return { db: ctx.ports.db, outbound, clock: ctx.ports.clock };
}

export const registerWebhook = defineOperation({
  name: 'register_webhook',
  title: 'Register or update a webhook',
  description: 'Register where events are delivered (POST to webhookUrl, with Authorization: Bearer <webhookToken> and Standard Webhooks signature headers), or update a configuration: only the fields given change (PATCH semantics); sessionKey selects the configuration and is generated when omitted. The URL must be public (private, loopback, link-local and reserved addresses are refused before any connection) and must answer a test POST with 2xx within 5 s. A new configuration returns its signingSecret once.',
  input: RegisterWebhookInputSchema,
  output: RegisterWebhookOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/webhook' }],
  handler: async (input, ctx) => {
    const { account } = await requireAccount(ctx);
    return saveWebhook(webhookSaveDeps(ctx), account.id, input);
  },
});

export const getWebhook = defineOperation({
  name: 'get_webhook_status',
  title: 'Webhook status',
  description: 'The webhook configuration for sessionKey, or, without it, every configuration of the account (in sessions; the top-level fields describe the most recently updated). configured is false when none is registered.',
  input: GetWebhookInputSchema,
  output: GetWebhookOutputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/webhook' }],
  handler: async (input, ctx) => {
    const { account } = await requireAccount(ctx);
    const sessions = (await webhookConfigStore(ctx.ports.db).list(account.id, input.sessionKey)).map(toStatus);
    return { ...(sessions[0] ?? { ...NOT_CONFIGURED, sessionKey: input.sessionKey ?? '' }), sessions };
  },
});

export const listWebhookDeliveries = defineOperation({
  name: 'list_webhook_deliveries',
  title: 'Webhook delivery log',
  description: 'The latest webhook deliveries, newest first: event, where it went, the receiver\'s status code or the error, latency. Use it to see why a receiver did not get an event (deliveries are not retried).',
  input: ListDeliveriesInputSchema,
  output: ListDeliveriesOutputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/webhook/deliveries' }],
  handler: async (input, ctx) => {
    const { account } = await requireAccount(ctx);
    return { deliveries: await listDeliveries(ctx.ports.db, account.id, input) };
  },
});

export const webhookOperations: AnyOperation[] = [registerWebhook, getWebhook, listWebhookDeliveries];
