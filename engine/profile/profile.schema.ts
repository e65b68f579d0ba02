/**
 * Profile contracts (service-spec.md, Profile: "Request and response shapes … not shown", so they
 * are designed here and documented in OpenAPI). One zod schema per contract (STYLE.md 2).
 */
import { z } from 'zod';
import { US_STATE_CODES } from './us-states.ts';

const Name = z.string().trim().min(1).max(100);

/** Demographics a PATCH may set. Every field is optional; `null` clears a field. */
export const DemographicsFields = {
  givenName: Name.nullable().optional().describe('Given (first) name.'),
  familyName: Name.nullable().optional().describe('Family (last) name.'),
  birthDate: z.iso.date('a date as YYYY-MM-DD').nullable().optional()
    .describe('Date of birth, YYYY-MM-DD; not in the future.'),
  sex: z.enum(['female', 'male', 'other', 'unknown']).nullable().optional()
    .describe('Sex for clinical purposes: female, male, other or unknown.'),
  phone: z.string().trim().regex(/^\+?[0-9][0-9 ().-]{6,22}$/, 'a phone number such as +1 415 555 0100')
    .nullable().optional().describe('Phone number, digits with optional +, spaces, dots, dashes, parentheses.'),
  addressLine1: z.string().trim().min(1).max(200).nullable().optional(),
  addressLine2: z.string().trim().min(1).max(200).nullable().optional(),
  city: z.string().trim().min(1).max(100).nullable().optional(),
  state: z.string().trim().toUpperCase()
    .refine((s) => US_STATE_CODES.has(s), 'a 2-letter US state or territory code such as CA')
    .nullable().optional().describe('2-letter US state or territory code (USPS).'),
  postalCode: z.string().trim().regex(/^\d{5}(-\d{4})?$/, 'a 5-digit ZIP code, optionally ZIP+4')
    .nullable().optional().describe('US ZIP code (12345 or 12345-6789).'),
};

export const DemographicsSchema = z.object({
  givenName: z.string().nullable(),
  familyName: z.string().nullable(),
  birthDate: z.string().nullable(),
  sex: z.string().nullable(),
  phone: z.string().nullable(),
  addressLine1: z.string().nullable(),
  addressLine2: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  postalCode: z.string().nullable(),
});
export type Demographics = z.infer<typeof DemographicsSchema>;

export const PatientSchema = z.object({
  patientId: z.string().describe('Use as `patientId` in other calls; omit it to mean the account holder.'),
  relationship: z.enum(['self', 'dependent']),
  demographics: DemographicsSchema,
});
export type Patient = z.infer<typeof PatientSchema>;

export const OnboardingSchema = z.object({
  termsAccepted: z.boolean().describe('True when the latest acceptance is of the current versions.'),
  termsVersion: z.string().nullable().describe('Terms version last accepted, if any.'),
  privacyVersion: z.string().nullable().describe('Privacy-notice version last accepted, if any.'),
  acceptedAt: z.string().nullable().describe('When it was accepted (ISO 8601).'),
  complete: z.boolean(),
  currentTermsVersion: z.string().describe('The version POST /api/profile/accept-terms expects.'),
  currentPrivacyVersion: z.string(),
  termsUrl: z.string(),
  privacyUrl: z.string(),
});
export type Onboarding = z.infer<typeof OnboardingSchema>;

export const GetProfileInputSchema = z.strictObject({});
export const ProfileSchema = z.object({
  accountId: z.string(),
  email: z.string(),
  onboarding: OnboardingSchema,
  patients: z.array(PatientSchema).describe('The account holder (relationship self) first, then dependents.'),
});
export type Profile = z.infer<typeof ProfileSchema>;

export const UpdatePatientInputSchema = z.strictObject({
  patientId: z.string().trim().min(1).max(64).optional()
    .describe('An existing patient of this account (from GET /api/profile). Omit to update the account holder, or with relationship "dependent" to create a dependent.'),
  relationship: z.enum(['self', 'dependent']).optional()
    .describe('Without patientId: "dependent" creates a new dependent (givenName, familyName and birthDate required); "self" or absent updates the account holder.'),
  ...DemographicsFields,
});
export type UpdatePatientInput = z.infer<typeof UpdatePatientInputSchema>;

export const UpdatePatientOutputSchema = z.object({
  patient: PatientSchema,
  created: z.boolean().describe('True when a new dependent was created.'),
});

export const AcceptTermsInputSchema = z.strictObject({
  termsVersion: z.string().trim().min(1).max(40).describe('Must equal onboarding.currentTermsVersion.'),
  privacyVersion: z.string().trim().min(1).max(40).describe('Must equal onboarding.currentPrivacyVersion.'),
});
export const AcceptTermsOutputSchema = z.object({ onboarding: OnboardingSchema });
