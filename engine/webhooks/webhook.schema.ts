import { z } from 'zod';

/** Passed through in every delivery payload (service-spec.md, Webhooks, register_webhook). */
export const DeliveryContextSchema = z.strictObject({
  to: z.string().max(200).optional().describe('Recipient identifier.'),
  channel: z.string().max(100).optional().describe('Channel name.'),
  deliver: z.boolean().optional(),
});
export type DeliveryContext = z.infer<typeof DeliveryContextSchema>;

export const SessionKeySchema = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'letters, digits and . _ : - (1 to 128)');

/**
 * register_webhook's parameters (service-spec.md, Webhooks). `init_signup` takes the same with
 * `webhookUrl` optional. PATCH semantics: a field not given keeps its stored value.
 */
export const WebhookParamsSchema = z.strictObject({
  webhookUrl: z.string().max(2048).describe('Publicly reachable https URL that receives event deliveries (http only for an address on OUTBOUND_ALLOWLIST).'),
  webhookToken: z.string().min(16).max(512).optional().describe('Bearer token sent back as Authorization on every delivery (at least 16 characters).'),
  deliveryContext: DeliveryContextSchema.optional().describe('Passed through in every delivery payload.'),
  conversationSessionKey: z.string().min(1).max(200).optional().describe('For threading notifications; passed through in every delivery payload.'),
  sessionKey: SessionKeySchema.optional().describe('Which configuration to create or update; generated when omitted.'),
});
export type WebhookParams = z.infer<typeof WebhookParamsSchema>;

export const RegisterWebhookInputSchema = WebhookParamsSchema.extend({
  rotateSigningSecret: z.boolean().optional().describe('Issue a new Standard Webhooks signing secret (returned once in signingSecret); the old one stops signing at once.'),
});
export type RegisterWebhookInput = z.infer<typeof RegisterWebhookInputSchema>;

/** Webhook configuration (status) resource (service-spec.md, Webhook configuration). */
export const WebhookStatusSchema = z.object({
  configured: z.boolean(),
  sessionKey: z.string(),
  webhookUrl: z.string(),
  hasSecret: z.boolean().describe('A webhookToken is set (sent as the bearer on deliveries).'),
  hasDeliveryContext: z.boolean(),
  conversationSessionKey: z.string(),
  linkedAt: z.string(),
  hint: z.string(),
});
export type WebhookStatus = z.infer<typeof WebhookStatusSchema>;

export const RegisterWebhookOutputSchema = z.object({
  success: z.boolean(),
  webhookUrl: z.string(),
  hasSecret: z.boolean(),
  hasDeliveryContext: z.boolean(),
  sessionKey: z.string(),
  conversationSessionKey: z.string(),
  created: z.boolean().describe('True when this call created the configuration.'),
  signingSecret: z.string().optional().describe('Standard Webhooks signing secret (whsec_…), shown only when the configuration is created or the secret rotated: keep it to verify webhook-signature.'),
  connectivity: z.object({ statusCode: z.number().int(), latencyMs: z.number().int() }).describe('The connectivity test the URL passed before it was saved.'),
  agentInstructions: z.array(z.string()),
});
export type RegisterWebhookOutput = z.infer<typeof RegisterWebhookOutputSchema>;

export const GetWebhookInputSchema = z.strictObject({
  sessionKey: SessionKeySchema.optional().describe('One configuration; without it all of them are returned in sessions.'),
});
export const GetWebhookOutputSchema = WebhookStatusSchema.extend({
  sessions: z.array(WebhookStatusSchema).describe('Every configuration asked for (all of the account\'s without sessionKey), most recently updated first; the top-level fields repeat the first.'),
});

export const DELIVERY_STATES = ['pending', 'sending', 'delivered', 'failed'] as const;
export const WebhookDeliverySchema = z.object({
  deliveryId: z.string().describe('The webhook-id header and the payload eventId of this delivery.'),
  event: z.string(),
  consultationId: z.string().nullable(),
  sessionKey: z.string(),
  webhookUrl: z.string().nullable().describe('Where it was sent (null until attempted).'),
  state: z.enum(DELIVERY_STATES),
  statusCode: z.number().int().nullable().describe('The receiver\'s HTTP status; null when no answer came.'),
  error: z.string().nullable().describe('Why no 2xx came (timeout, refused address, connection error, HTTP status).'),
  latencyMs: z.number().int().nullable().describe('Request start to answer.'),
  attempts: z.number().int().describe('Times the delivery was claimed for sending: 1, or more after a server crash (a repeat carries the same webhook-id).'),
  eventAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const ListDeliveriesInputSchema = z.strictObject({
  sessionKey: SessionKeySchema.optional().describe('Only this configuration\'s deliveries.'),
  limit: z.number().int().min(1).max(100).default(20).describe('Newest first; default 20, at most 100.'),
});
export const ListDeliveriesOutputSchema = z.object({ deliveries: z.array(WebhookDeliverySchema) });
