/**
 * Saving a webhook configuration (register_webhook, and init_signup with webhookUrl): the URL's
 * pattern and address check, then a connectivity test, then the PATCH-style write
 * (service-spec.md, Webhooks: "Before registration the URL is checked by a pattern check … and
 * a connectivity test (must be reachable)").
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import type { Clock } from '../ports/clock.ts';
import type { Db } from '../ports/db.ts';
import type { Outbound } from '../ports/outbound.ts';
import { newSessionKey, newSigningSecret, webhookConfigStore } from './webhook-config-store.ts';
import { sendDelivery } from './webhook-delivery.ts';
import { checkWebhookUrl } from './webhook-url.ts';
import type { RegisterWebhookInput, RegisterWebhookOutput } from './webhook.schema.ts';

export interface WebhookSaveDeps {
  db: Db;
  outbound: Outbound;
  clock: Clock;
}

/** The event name of the connectivity test (not in the spec's table: receivers treat it as "nothing to fetch"). */
export const TEST_EVENT = 'webhook_test';

/** Checks, tests and saves; a refusal is a 400 naming webhookUrl, and nothing is written. */
export async function saveWebhook(deps: WebhookSaveDeps, accountId: string, input: RegisterWebhookInput): Promise<RegisterWebhookOutput> {
  const store = webhookConfigStore(deps.db);
  const sessionKey = input.sessionKey ?? newSessionKey();
  const existing = await store.get(accountId, sessionKey);
  const url = await checkWebhookUrl(input.webhookUrl, deps.outbound);
  const signingSecret = !existing || !existing.signingSecret || input.rotateSigningSecret ? newSigningSecret() : undefined;
  const conversationSessionKey = input.conversationSessionKey ?? existing?.conversationSessionKey ?? null;
  const test = await sendDelivery(deps.outbound, {
    deliveryId: `msg_test_${randomBytes(12).toString('hex')}`,
    event: TEST_EVENT,
    message: 'Connectivity test from carebridge: answer with a 2xx status. Nothing to fetch.',
    status: null,
    consultationId: null,
    timestamp: deps.clock.now().toISOString(),
    data: {},
    sessionKey,
    conversationSessionKey,
    deliveryContext: input.deliveryContext ?? existing?.deliveryContext ?? null,
    webhookUrl: url.href,
    webhookToken: input.webhookToken ?? existing?.webhookToken ?? null,
    signingSecret: signingSecret ?? existing!.signingSecret,
  }, deps.clock.now());
  if (!test.ok) {
    throw new AppError('invalid_request', `webhookUrl failed the connectivity test (${test.error}): it must answer a POST with a 2xx status within 5 seconds. Nothing was saved.`, {
      field: 'webhookUrl', code: 'webhook_unreachable', extra: { statusCode: test.statusCode },
    });
  }
  // Written under the configuration's lock (store.save): a create that raced another create of
  // this session key keeps the winner's secret, and is told that one, the secret actually stored.
  const { config, created } = await store.save(accountId, { ...input, webhookUrl: url.href, sessionKey },
    signingSecret ? { candidate: signingSecret, rotate: input.rotateSigningSecret === true } : null);
  const issued = signingSecret ? config.signingSecret : undefined;
  return {
    success: true,
    webhookUrl: config.webhookUrl,
    hasSecret: config.webhookToken !== null,
    hasDeliveryContext: config.deliveryContext !== null,
    sessionKey: config.sessionKey,
    conversationSessionKey: config.conversationSessionKey ?? '',
    created,
    ...(issued ? { signingSecret: issued } : {}),
    connectivity: { statusCode: test.statusCode ?? 0, latencyMs: test.latencyMs },
    agentInstructions: [
      'Events now arrive at webhookUrl as POST requests. Compare the Authorization bearer with your webhookToken, or verify the webhook-signature header with the signing secret (Standard Webhooks).',
      ...(issued ? ['Keep signingSecret now: it is shown only once (pass rotateSigningSecret: true to issue a new one).'] : []),
      'Payloads never carry message content: fetch the conversation (GET /api/consultations/{consultationId}) when an event arrives.',
    ],
  };
}
