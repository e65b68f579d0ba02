import { z } from 'zod';
import { RegisterWebhookOutputSchema, WebhookParamsSchema, WebhookStatusSchema } from '../webhooks/webhook.schema.ts';

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
export const InitSignupInputSchema = WebhookParamsSchema.partial({ webhookUrl: true });
export type InitSignupWebhookParams = z.infer<typeof InitSignupInputSchema>;

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
  webhook: RegisterWebhookOutputSchema.optional().describe('What registering webhookUrl did (as register_webhook answers), when it was given.'),
});
