import type { HandlerContext } from '../core/context.ts';
import { AppError } from '../core/errors.ts';
import type { Acceptance, AccountRow, ProfileStore } from './profile-store.ts';
import { sqlProfileStore } from './profile-store.ts';
import type { Onboarding } from './profile.schema.ts';
import { CURRENT_PRIVACY_VERSION, CURRENT_TERMS_VERSION, PRIVACY_PATH, TERMS_PATH } from './terms.ts';

/** Onboarding state from the latest acceptance: complete only for the currently published versions. */
export function onboardingState(latest: Acceptance | null, baseUrl: string): Onboarding {
  const termsAccepted = latest !== null
    && latest.termsVersion === CURRENT_TERMS_VERSION && latest.privacyVersion === CURRENT_PRIVACY_VERSION;
  return {
    termsAccepted,
    termsVersion: latest?.termsVersion ?? null,
    privacyVersion: latest?.privacyVersion ?? null,
    acceptedAt: latest?.acceptedAt.toISOString() ?? null,
    complete: termsAccepted,
    currentTermsVersion: CURRENT_TERMS_VERSION,
    currentPrivacyVersion: CURRENT_PRIVACY_VERSION,
    termsUrl: `${baseUrl}${TERMS_PATH}`,
    privacyUrl: `${baseUrl}${PRIVACY_PATH}`,
  };
}

/**
 * The signed-in caller's account, its store and its id. Throws not_authenticated for anonymous
 * callers and for tokens whose account no longer exists (deleted after the token was issued).
 */
export async function requireAccount(ctx: HandlerContext): Promise<{ store: ProfileStore; account: AccountRow }> {
  if (ctx.caller.kind !== 'user') throw new AppError('not_authenticated');
  const store = sqlProfileStore(ctx.ports.db);
  const account = await store.getAccount(ctx.caller.userId);
  if (!account) throw new AppError('not_authenticated', 'The account for this token no longer exists; sign in again.');
  return { store, account };
}
