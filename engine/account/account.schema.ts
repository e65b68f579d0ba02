import { z } from 'zod';

/** What is still missing before the account can use every capability. */
export const MissingStepSchema = z.enum(['terms_acceptance']);

export const CheckAccountStatusInputSchema = z.strictObject({});
export const AccountStatusSchema = z.object({
  signedIn: z.boolean(),
  accountId: z.string(),
  email: z.string(),
  onboardingComplete: z.boolean(),
  missing: z.array(MissingStepSchema).describe('Steps still required; empty when onboarding is complete.'),
  nextStep: z.enum(['accept_terms', 'ready']),
  instructions: z.string().describe('What the agent should do next, in one sentence.'),
  currentTermsVersion: z.string(),
  currentPrivacyVersion: z.string(),
  termsUrl: z.string(),
  privacyUrl: z.string(),
  patientCount: z.number().int().describe('The user plus dependents.'),
});
export type AccountStatus = z.infer<typeof AccountStatusSchema>;

/**
 * The webhook parameters `init_signup` takes (service-spec.md, Webhooks: the same as
 * register_webhook's). Without `webhookUrl` nothing is written and the existing configuration
 * is kept; the other fields then have nothing to attach to and are refused.
 */
export const InitSignupInputSchema = z.strictObject({
  webhookUrl: z.string().max(2048).optional().describe('Publicly reachable https URL that receives event deliveries. Omit to keep the existing configuration.'),
  webhookToken: z.string().min(16).max(512).optional().describe('Bearer token sent back as Authorization on every delivery (at least 16 characters).'),
  deliveryContext: z.strictObject({
    to: z.string().max(200).optional().describe('Recipient identifier.'),
    channel: z.string().max(100).optional().describe('Channel name.'),
    deliver: z.boolean().optional(),
  }).optional().describe('Passed through in every delivery payload.'),
  conversationSessionKey: z.string().min(1).max(200).optional().describe('For threading notifications.'),
  sessionKey: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'letters, digits and . _ : - (1 to 128)').optional().describe('Which configuration to create or update; generated when omitted.'),
});
export type InitSignupWebhookParams = z.infer<typeof InitSignupInputSchema>;

/** Webhook configuration (status) resource (service-spec.md, Webhook configuration). */
export const WebhookStatusSchema = z.object({
  configured: z.boolean(),
  sessionKey: z.string(),
  webhookUrl: z.string(),
  hasSecret: z.boolean(),
  hasDeliveryContext: z.boolean(),
  conversationSessionKey: z.string(),
  linkedAt: z.string(),
});
export type WebhookStatus = z.infer<typeof WebhookStatusSchema>;
export const InitSignupOutputSchema = z.object({
  signedIn: z.boolean(),
  onboardingComplete: z.boolean(),
  nextStep: z.enum(['accept_terms', 'ready']),
  instructions: z.array(z.string()).describe('Steps for the agent and the user, in order.'),
  signupUrl: z.string().describe('Sign-up form (a page with a form; creates the account and sends a confirmation email).'),
  signinUrl: z.string().describe('Sign-in form (checks the password; links to password reset).'),
  termsUrl: z.string(),
  privacyUrl: z.string(),
  webhooks: z.array(WebhookStatusSchema).describe('The account\'s webhook configurations after this call (empty when none).'),
});
