/**
 * Account operations agents call first (issue 2, item 10): `check_account_status` and
 * `init_signup`. Both need a bearer token: an agent without one gets the 401 whose
 * WWW-Authenticate header starts the OAuth flow (RFC 9728), which is the sign-up path itself.
 */
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import { onboardingState, requireAccount } from '../profile/onboarding.ts';
import {
  AccountStatusSchema, CheckAccountStatusInputSchema, InitSignupInputSchema, InitSignupOutputSchema,
} from './account.schema.ts';
import { AppError } from '../core/errors.ts';
import { SIGNIN_PATH, SIGNUP_PATH } from './links.ts';
import { toStatus, webhookConfigStore } from '../webhooks/webhook-config-store.ts';
import { saveWebhook } from '../webhooks/webhook-register.ts';
import { webhookSaveDeps } from '../webhooks/webhook.operations.ts';

export const checkAccountStatus = defineOperation({
  name: 'check_account_status',
  title: 'Check account status',
  description: 'Whether the user is signed in and onboarded, what is missing, and the next step. Call this first in a session; if nextStep is "accept_terms", show the user termsUrl and privacyUrl and call accept_terms once they agree.',
  input: CheckAccountStatusInputSchema,
  output: AccountStatusSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/account/status' }],
  handler: async (_input, ctx) => {
    const { store, account } = await requireAccount(ctx);
    await store.ensureSelfPatient(account.id);
    const [latest, patients] = await Promise.all([store.latestAcceptance(account.id), store.listPatients(account.id)]);
    const onboarding = onboardingState(latest, ctx.urls.baseUrl);
    return {
      signedIn: true,
      accountId: account.id,
      email: account.email,
      onboardingComplete: onboarding.complete,
      missing: onboarding.complete ? [] : ['terms_acceptance' as const],
      nextStep: onboarding.complete ? 'ready' as const : 'accept_terms' as const,
      instructions: onboarding.complete
        ? 'The account is ready; no action is needed.'
        : `Ask the user to read the terms (${onboarding.termsUrl}) and privacy notice (${onboarding.privacyUrl}); when they agree, call accept_terms with termsVersion "${onboarding.currentTermsVersion}" and privacyVersion "${onboarding.currentPrivacyVersion}".`,
      currentTermsVersion: onboarding.currentTermsVersion,
      currentPrivacyVersion: onboarding.currentPrivacyVersion,
      termsUrl: onboarding.termsUrl,
      privacyUrl: onboarding.privacyUrl,
      patientCount: patients.length,
    };
  },
});

export const initSignup = defineOperation({
  name: 'init_signup',
  title: 'Start or finish sign-up',
  description: 'What the user must do next to finish setting up their account, with the sign-up and sign-in links. Call when check_account_status reports something missing, or when the user wants to (re-)connect an account. Pass webhookUrl (and optionally webhookToken, deliveryContext, conversationSessionKey, sessionKey) to register where events are delivered; without webhookUrl the existing webhook configuration is kept. Call it again with the webhook parameters after re-authenticating.',
  input: InitSignupInputSchema,
  output: InitSignupOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/account/init-signup' }],
  handler: async (input, ctx) => {
    const { store, account } = await requireAccount(ctx);
    const webhooks = webhookConfigStore(ctx.ports.db);
    const { webhookUrl } = input;
    let webhook;
    if (webhookUrl === undefined) {
      const given = (['webhookToken', 'deliveryContext', 'conversationSessionKey', 'sessionKey'] as const).find((k) => input[k] !== undefined);
      if (given) throw new AppError('invalid_request', `${given} needs webhookUrl: pass webhookUrl with the other webhook parameters (without it the existing configuration is kept as it is).`, { field: 'webhookUrl', code: 'webhook_url_required' });
    } else {
      // The same checks and connectivity test as register_webhook.
      webhook = await saveWebhook(webhookSaveDeps(ctx), account.id, { ...input, webhookUrl });
    }
    const onboarding = onboardingState(await store.latestAcceptance(account.id), ctx.urls.baseUrl);
    const signupUrl = `${ctx.urls.baseUrl}${SIGNUP_PATH}`;
    const signinUrl = `${ctx.urls.baseUrl}${SIGNIN_PATH}`;
    const instructions = onboarding.complete
      ? ['The account is signed in and onboarding is complete; nothing else is needed.',
        `To connect a different account, start a new OAuth authorization: its page lets the user sign in or create an account. The stand-alone forms are ${signinUrl} and ${signupUrl}.`]
      : [`Show the user the terms of service (${onboarding.termsUrl}) and privacy notice (${onboarding.privacyUrl}).`,
        `When the user agrees, call accept_terms with termsVersion "${onboarding.currentTermsVersion}" and privacyVersion "${onboarding.currentPrivacyVersion}".`,
        'Optionally add the user\'s demographics with update_patient.'];
    return {
      signedIn: true,
      onboardingComplete: onboarding.complete,
      nextStep: onboarding.complete ? 'ready' as const : 'accept_terms' as const,
      instructions,
      signupUrl,
      signinUrl,
      termsUrl: onboarding.termsUrl,
      privacyUrl: onboarding.privacyUrl,
      webhooks: (await webhooks.list(account.id)).map(toStatus),
      ...(webhook ? { webhook } : {}),
    };
  },
});

export const accountOperations: AnyOperation[] = [checkAccountStatus, initSignup];
