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

/** Webhook parameters (service-spec.md, Webhooks) join this schema in a later issue. */
export const InitSignupInputSchema = z.strictObject({});
export const InitSignupOutputSchema = z.object({
  signedIn: z.boolean(),
  onboardingComplete: z.boolean(),
  nextStep: z.enum(['accept_terms', 'ready']),
  instructions: z.array(z.string()).describe('Steps for the agent and the user, in order.'),
  signupUrl: z.string().describe('Where a new user creates an account (OAuth sign-up page).'),
  signinUrl: z.string().describe('Where an existing user signs in again.'),
  termsUrl: z.string(),
  privacyUrl: z.string(),
});
