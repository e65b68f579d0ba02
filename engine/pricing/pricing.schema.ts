/**
 * Pricing request and response contracts (service-spec.md, Pricing). One zod schema per contract,
 * used for validation, MCP tool schemas and OpenAPI (STYLE.md 2). Field names follow the spec
 * exactly; the free-form objects the spec leaves open are `z.record`.
 */
import { z } from 'zod';

const FreeObject = z.record(z.string(), z.unknown());

export const NpiStringSchema = z.string().regex(/^\d{10}$/, 'a 10-digit NPI');
/** Catalog codes: CPT/HCPCS (5 characters), MS-DRG (3 digits). Catalog membership is checked by the handler. */
export const CodeStringSchema = z.string().trim().min(1).max(12).regex(/^[A-Za-z0-9]+$/, 'a CPT/HCPCS code such as 70551');

export const PlanHintsSchema = z.strictObject({
  payerName: z.string().trim().min(1).max(200).optional(),
  employerName: z.string().trim().min(1).max(200).optional(),
  planName: z.string().trim().min(1).max(200).optional(),
  groupNumber: z.string().trim().min(1).max(64).optional(),
  unavailable: z.boolean().optional(),
});
export type PlanHints = z.infer<typeof PlanHintsSchema>;

const NetworkStatusFields = {
  providerName: z.string().trim().min(1).max(200).optional()
    .describe('Name; consumer brand names work; city or ZIP disambiguates.'),
  npi: NpiStringSchema.optional().describe('10-digit provider id; never required.'),
  code: CodeStringSchema.optional().describe('Catalog CPT/HCPCS code; with it each match carries its contracted rate.'),
  limit: z.number().int().min(1).max(100).optional().describe('Maximum matches; default 50, maximum 100.'),
  latitude: z.number().min(-90).max(90).optional(),
  longitude: z.number().min(-180).max(180).optional(),
  zip: z.string().trim().regex(/^\d{5}(-\d{4})?$/, 'a 5-digit ZIP code').optional(),
  planHints: PlanHintsSchema.optional(),
  include: z.array(z.enum(['supportedServices', 'definitions'])).max(2).optional()
    .describe('Extra reference parts to add to the answer (issue 37, item 9): "supportedServices" sends the whole catalog (sent anyway when code is absent or has no published rate); "definitions" sends the full methodology, billingEvidenceDefinitions and signalDefinitions (otherwise a one-line methodology and empty definition objects, to keep answers small).'),
};

/** Public host body. Cross-field rules (lat needs long, a name or NPI is required) are checked in the handler so the error names the field. */
export const NetworkStatusRequestSchema = z.strictObject(NetworkStatusFields);
export type NetworkStatusRequest = z.infer<typeof NetworkStatusRequestSchema>;

/** Main host body: adds `patientId`. */
export const NetworkStatusMainRequestSchema = z.strictObject({
  ...NetworkStatusFields,
  patientId: z.string().min(1).max(64).optional().describe('From GET /api/profile; omit for the account holder.'),
});

export const ProviderEvidenceRequestSchema = z.strictObject({
  npi: NpiStringSchema,
  code: CodeStringSchema.optional(),
});
export const ProviderEvidenceMainRequestSchema = z.strictObject({
  npi: NpiStringSchema,
  code: CodeStringSchema.optional(),
  patientId: z.string().min(1).max(64).optional(),
});

export const RelatedCodeSchema = z.object({ code: z.string(), name: z.string(), when: z.string() });
export const ServiceSchema = z.object({
  code: z.string(),
  name: z.string(),
  category: z.string(),
  appliesTo: z.string(),
  priceNote: z.string(),
  medicareNote: z.string(),
  relatedCodes: z.array(RelatedCodeSchema),
});
export const SupportedServiceSchema = z.object({ code: z.string(), name: z.string(), category: z.string() });

export const LocationSchema = z.object({
  applied: z.boolean(),
  source: z.string(),
  state: z.string().nullable(),
  note: z.string(),
});

export const RateRangeSchema = z.object({ min: z.number(), max: z.number(), median: z.number() });

export const PatientShareSchema = z.object({
  afterDeductible: z.number().nullable(),
  beforeDeductibleMet: z.number().nullable(),
  limitingChargeMax: z.number().nullable(),
  note: z.string(),
});

export const MedicareStatusSchema = z.object({
  /** null: the enrollment (PECOS) data is not loaded, so enrollment is unknown (issue 37, item 8). */
  enrolled: z.boolean().nullable(),
  assignment: z.string(),
  optedOut: z.boolean(),
  basis: z.string(),
});

export const SignalSchema = z.object({
  type: z.string(),
  display: z.string(),
  hcpcs: z.string().nullable().optional(),
  floor: z.number().nullable().optional(),
  pctl: z.number().nullable().optional(),
  level: z.string().nullable().optional(),
  facility: z.string().nullable().optional(),
  measure: z.string().nullable().optional(),
  score: z.number().nullable().optional(),
  ci: z.array(z.number()).nullable().optional(),
  verdict: z.string().nullable().optional(),
  denominator: z.number().nullable().optional(),
});

export const MedicareAnchorSchema = z.object({
  source: z.string(),
  medicareAllowed: z.number(),
  rateRatio: z.number().nullable(),
  year: z.number().int(),
  setting: z.string(),
});

export const BillingOutlookSchema = z.object({
  mode: z.string(),
  ask: z.string().nullable(),
  warning: z.string().nullable(),
  partnership: z.string().nullable(),
  leading: z.string().nullable(),
  rate: z.number().nullable(),
  basis: z.string(),
  caution: z.string().nullable(),
  nominated: z.array(z.object({ entity: z.string(), basis: z.string() })),
  brandLeadSuppressed: z.object({ entity: z.string(), reason: z.string() }).nullable(),
});

export const BillingCandidateSchema = z.object({
  billingOrg: z.string(),
  tin: z.string().nullable(),
  rate: z.number().nullable(),
  rateRange: RateRangeSchema.nullable(),
  rateNote: z.string(),
  setting: z.string().nullable(),
  nMemberships: z.number().int(),
  typicalRate: z.number().nullable(),
  rateAssessment: z.string().nullable(),
  evidence: z.array(FreeObject),
});

export const EmployerSchema = z.object({
  organization: z.string(),
  npi: z.number().nullable(),
  address: z.string().nullable(),
  telehealth: z.boolean(),
});

/**
 * What inNetwork rests on (issue 37, items 6-7): listed / not_found in the resolved plan's or
 * payer's files; plan_unknown (no plan resolved: inNetwork null); payer_data_not_loaded (the
 * payer's or plan's in-network files are not in this snapshot: inNetwork null); no_network
 * (Original Medicare, which has no network: inNetwork false).
 */
export const NetworkStatusValueSchema = z.enum(['listed', 'not_found', 'plan_unknown', 'payer_data_not_loaded', 'no_network']);
export type NetworkStatusValue = z.infer<typeof NetworkStatusValueSchema>;

export const OtherPayerSchema = z.object({ payer: z.string(), payerLabel: z.string(), inNetwork: z.boolean() });

export const MatchSchema = z.object({
  npi: z.number(),
  name: z.string(),
  entityType: z.string(),
  otherNames: z.array(z.string()),
  employers: z.array(EmployerSchema),
  address: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  zip: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  locationPrecision: z.string(),
  distanceKm: z.number().nullable(),
  facilityType: z.string().nullable(),
  specialtyFit: z.string().nullable(),
  specialtyFitNote: z.string().nullable(),
  telehealthOnly: z.boolean(),
  telehealthOnlyNote: z.string().nullable(),
  taxonomy: z.string().nullable(),
  taxonomyDescription: z.string().nullable(),
  subpart: z.boolean(),
  parentOrganization: z.string().nullable(),
  mailingState: z.string().nullable(),
  deactivated: z.boolean(),
  identityNote: z.string().nullable(),
  attributionNote: z.string().nullable(),
  identityCaution: z.string().nullable(),
  federalSiteNote: z.string().nullable(),
  /**
   * true: listed in the resolved plan's (or payer's) published in-network files; false: not found
   * there (never a verdict); null: unknown, because no plan was resolved or the payer's files are
   * not loaded (issue 37, items 6-7). networkStatus says which.
   */
  inNetwork: z.boolean().nullable(),
  networkStatus: NetworkStatusValueSchema,
  networkEvidence: z.number(),
  note: z.string(),
  otherPayers: z.array(OtherPayerSchema),
  matchNote: z.string(),
  rate: z.number().nullable(),
  rateRange: RateRangeSchema.nullable(),
  rateSampled: z.boolean(),
  rateNote: z.string().nullable(),
  rangeNote: z.string().nullable(),
  patientShare: PatientShareSchema.nullable(),
  medicareStatus: MedicareStatusSchema.nullable(),
  setting: z.string().nullable(),
  typicalRate: z.number().nullable(),
  rateAssessment: z.string().nullable(),
  serviceEvidence: z.string().nullable(),
  serviceAvailabilityNote: z.string().nullable(),
  billingOrg: z.string().nullable(),
  multiEntity: z.boolean(),
  billingOutlook: BillingOutlookSchema.nullable(),
  billingCandidates: z.array(BillingCandidateSchema),
  billingCandidatesOmitted: z.number().int(),
  billingNote: z.string().nullable(),
  signals: z.array(SignalSchema),
  medicareAnchor: MedicareAnchorSchema.nullable(),
});
export type Match = z.infer<typeof MatchSchema>;

export const OrganizationSchema = z.object({
  organization: z.string(),
  entities: z.number().int(),
  /** true when any of its NPIs is listed; null when network status is unknown for every one. */
  inNetwork: z.boolean().nullable(),
  nearestKm: z.number().nullable(),
  facilityTypes: z.record(z.string(), z.number()),
  npis: z.array(z.object({
    npi: z.number(),
    facilityType: z.string().nullable(),
    city: z.string().nullable(),
    distanceKm: z.number().nullable(),
    inNetwork: z.boolean().nullable(),
    rate: z.number().nullable(),
    rateRange: RateRangeSchema.nullable(),
  })),
});

export const PlanSchema = z.object({
  payer: z.string().nullable(),
  payerLabel: z.string().nullable(),
  /** exact_plan | employer | plan_name | group_number | payer | none */
  matchTier: z.string(),
  basis: z.string(),
  sponsor: z.string().nullable(),
  planTypeNote: z.string().nullable(),
  payerSource: z.string(),
  coverageSelection: FreeObject,
  planVariants: z.object({ count: z.number().int(), kind: z.string() }).nullable(),
  coverageNote: z.string().nullable(),
  planHintsReceived: FreeObject,
  /**
   * Whether this snapshot holds in-network files for the resolved plan (issue 37, item 7): false
   * means the payer's files are not loaded, so nothing can be found in them; null when no payer
   * was resolved or the payer publishes no files (Original Medicare).
   */
  dataAvailable: z.boolean().nullable(),
});

export const MedicareBlockSchema = z.object({
  coverage: z.string(),
  assumed: z.boolean(),
  year: z.number().int(),
  partBDeductible: z.number(),
  coinsurancePct: z.number(),
  limitingChargePct: z.number(),
  medigap: z.boolean(),
  note: z.string(),
});

export const NeedsMoreInfoSchema = z.object({
  field: z.string(),
  ask: z.string(),
  why: z.string(),
  how: z.string(),
  options: z.array(z.union([z.string(), FreeObject])),
});

export const NetworkStatusResponseSchema = z.object({
  service: ServiceSchema.nullable(),
  /** The catalog: only when code is absent or unpriced, or on request (include); otherwise [] (issue 37, item 9). */
  supportedServices: z.array(SupportedServiceSchema),
  location: LocationSchema,
  matches: z.array(MatchSchema),
  organizations: z.array(OrganizationSchema),
  plan: PlanSchema,
  medicare: MedicareBlockSchema.nullable(),
  rateFetchNote: z.string(),
  networkNote: z.string(),
  /** Full definitions only with include: ["definitions"]; otherwise {} (the same texts every time). */
  billingEvidenceDefinitions: FreeObject,
  evidenceCardEligible: z.boolean(),
  signalDefinitions: FreeObject,
  /** One line by default; the full methodology with include: ["definitions"]. */
  methodology: z.string(),
  needsMoreInfo: z.array(NeedsMoreInfoSchema),
  disclaimer: z.string(),
});
export type NetworkStatusResponse = z.infer<typeof NetworkStatusResponseSchema>;

export const ProviderEvidenceResponseSchema = z.object({
  provider: z.object({
    npi: z.string(),
    name: z.string(),
    entityType: z.string(),
    city: z.string().nullable(),
    state: z.string().nullable(),
  }),
  service: ServiceSchema.nullable(),
  signals: z.array(SignalSchema),
  medicareAnchors: z.array(z.object({
    code: z.string(),
    medicareAllowed: z.number(),
    year: z.number().int(),
    setting: z.string(),
    service: z.string(),
  })),
  signalDefinitions: FreeObject,
  methodology: z.string(),
  corrections: z.string(),
  disclaimer: z.string(),
  needsMoreInfo: z.array(NeedsMoreInfoSchema),
});
export type ProviderEvidenceResponse = z.infer<typeof ProviderEvidenceResponseSchema>;

export const PricingIndexResponseSchema = z.object({
  name: z.string(),
  apiVersion: z.string(),
  dataVintage: z.string().nullable(),
  region: z.string(),
  auth: z.string(),
  docs: FreeObject,
  endpoints: z.array(FreeObject),
  rateLimits: FreeObject,
  disclaimer: z.string(),
  terms: z.string(),
  contact: z.string(),
});

export const PayerSchema = z.object({
  key: z.string(),
  label: z.string(),
  acceptedNames: z.array(z.string()),
  exactPlanIdentifiers: z.array(z.string()),
  coverage: z.string(),
  blueCard: z.boolean(),
  /** Whether the current snapshot holds any in-network file of this payer (issue 37, item 7). */
  dataAvailable: z.boolean(),
  /** In-network files of this payer in the current snapshot. */
  files: z.number().int(),
  /** Plans of this payer in the ingested tables of contents and file headers. */
  plans: z.number().int(),
  /** The newest TiC last_updated_on among those files (YYYY-MM-DD), or null. */
  lastUpdatedOn: z.string().nullable(),
});
export const PayersResponseSchema = z.object({ payers: z.array(PayerSchema) });
