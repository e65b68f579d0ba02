/**
 * Profile operations (issue 2, item 10; service-spec.md, Profile). Served as REST routes and MCP
 * tools from these declarations. All require a bearer token.
 */
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import { AppError } from '../core/errors.ts';
import type { HandlerContext } from '../core/context.ts';
import { onboardingState, requireAccount } from './onboarding.ts';
import { sqlProfileStore, type DemographicsPatch } from './profile-store.ts';
import {
  AcceptTermsInputSchema, AcceptTermsOutputSchema, GetProfileInputSchema, ProfileSchema,
  UpdatePatientInputSchema, UpdatePatientOutputSchema, type UpdatePatientInput,
} from './profile.schema.ts';
import { CURRENT_PRIVACY_VERSION, CURRENT_TERMS_VERSION } from './terms.ts';

/** Dependents per account; a guard against runaway clients, far above any real family. */
export const MAX_DEPENDENTS = 20;

export const getProfile = defineOperation({
  name: 'get_profile',
  title: 'Get profile',
  description: 'The signed-in user\'s account, onboarding state and patients (the user and dependents, each with its patientId). Use a dependent\'s patientId in other calls to act for that family member.',
  input: GetProfileInputSchema,
  output: ProfileSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/profile' }],
  handler: async (_input, ctx) => {
    const { store, account } = await requireAccount(ctx);
    await store.ensureSelfPatient(account.id);
    const [patients, latest] = await Promise.all([store.listPatients(account.id), store.latestAcceptance(account.id)]);
    return { accountId: account.id, email: account.email, onboarding: onboardingState(latest, ctx.urls.baseUrl), patients };
  },
});

function demographicsOf(input: UpdatePatientInput): DemographicsPatch {
  const { patientId: _p, relationship: _r, ...demo } = input;
  return demo;
}

function checkBirthDate(birthDate: string | null | undefined, ctx: HandlerContext): void {
  if (!birthDate) return;
  const today = ctx.ports.clock.now().toISOString().slice(0, 10);
  // ISO dates compare correctly as strings. A margin of one day allows callers in time zones ahead of UTC.
  const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  if (birthDate > tomorrow) throw new AppError('invalid_request', 'birthDate is in the future.', { field: 'birthDate' });
  if (birthDate < '1900-01-01') throw new AppError('invalid_request', 'birthDate is before 1900-01-01.', { field: 'birthDate' });
}

export const updatePatient = defineOperation({
  name: 'update_patient',
  title: 'Update patient information',
  description: 'Update demographics of the account holder or of a dependent. Only the fields given change; null clears a field. Without patientId it updates the account holder; with patientId (from get_profile) it updates that dependent; with relationship "dependent" and no patientId it adds a new dependent (givenName, familyName and birthDate required).',
  input: UpdatePatientInputSchema,
  output: UpdatePatientOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'PATCH', path: '/api/profile/patient' }],
  handler: async (input, ctx) => {
    const { store, account } = await requireAccount(ctx);
    const patch = demographicsOf(input);
    checkBirthDate(patch.birthDate, ctx);
    if (input.patientId === undefined && input.relationship === 'dependent') {
      for (const f of ['givenName', 'familyName', 'birthDate'] as const) {
        if (!patch[f]) throw new AppError('invalid_request', `${f} is required to add a dependent.`, { field: f });
      }
      return ctx.ports.db.transaction(async (tx) => {
        const txStore = sqlProfileStore(tx);
        await txStore.lockAccount(account.id);
        if (await txStore.countDependents(account.id) >= MAX_DEPENDENTS) {
          throw new AppError('conflict', `An account can hold at most ${MAX_DEPENDENTS} dependents.`, { code: 'too_many_dependents' });
        }
        return { patient: await txStore.createDependent(account.id, patch), created: true };
      });
    }
    const target = input.patientId ?? (await store.ensureSelfPatient(account.id)).patientId;
    const existing = await store.getPatient(account.id, target);
    // A patientId of another account is indistinguishable from one that does not exist.
    if (!existing) throw new AppError('not_found', 'No patient with this patientId on your account.', { field: 'patientId' });
    if (input.relationship !== undefined && input.relationship !== existing.relationship) {
      throw new AppError('invalid_request', `Patient ${existing.patientId} is "${existing.relationship}"; relationship cannot be changed.`, { field: 'relationship' });
    }
    const updated = await store.updatePatient(account.id, target, patch);
    if (!updated) throw new AppError('not_found', 'No patient with this patientId on your account.', { field: 'patientId' });
    return { patient: updated, created: false };
  },
});

export const acceptTerms = defineOperation({
  name: 'accept_terms',
  title: 'Accept terms and privacy notice',
  description: 'Record that the user accepted the current terms of service and privacy notice (versions from get_profile onboarding.currentTermsVersion / currentPrivacyVersion) and complete onboarding. Call only after the user has read and agreed to them.',
  input: AcceptTermsInputSchema,
  output: AcceptTermsOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/profile/accept-terms' }],
  handler: async (input, ctx) => {
    if (input.termsVersion !== CURRENT_TERMS_VERSION) {
      throw new AppError('invalid_request', `termsVersion must be the current version "${CURRENT_TERMS_VERSION}".`, { field: 'termsVersion', code: 'terms_version_mismatch' });
    }
    if (input.privacyVersion !== CURRENT_PRIVACY_VERSION) {
      throw new AppError('invalid_request', `privacyVersion must be the current version "${CURRENT_PRIVACY_VERSION}".`, { field: 'privacyVersion', code: 'privacy_version_mismatch' });
    }
    const { store, account } = await requireAccount(ctx);
    await store.ensureSelfPatient(account.id);
    const accepted = await store.recordAcceptance(account.id, input.termsVersion, input.privacyVersion, ctx.ports.clock.now());
    return { onboarding: onboardingState(accepted, ctx.urls.baseUrl) };
  },
});

export const profileOperations: AnyOperation[] = [getProfile, updatePatient, acceptTerms];
