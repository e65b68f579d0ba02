/**
 * Care job contracts (service-spec.md, Care job, Care jobs; issue 39, item 1). One zod schema per
 * contract, used for validation, MCP tool schemas and OpenAPI (STYLE.md 2). `params` follow the
 * spec's table per job type; a provider's office always carries identity (`npi` or
 * `providerName`) and location (`city` and `state`). Beyond the spec, and documented in
 * docs/care-jobs.md: `serviceCode` in params (prices the sheet) and a top-level `planHints`.
 */
import { z } from 'zod';
import { PlanHintsSchema } from '../pricing/pricing.schema.ts';
import { CARE_JOB_STATUSES, CARE_JOB_TIERS } from './care-job-status.ts';

export const JOB_TYPES = ['move_referral', 'book_appointment', 'cancel_or_reschedule'] as const;
export type JobType = (typeof JOB_TYPES)[number];

const text = (max: number) => z.string().trim().min(1).max(max);
const Npi = z.string().trim().regex(/^\d{10}$/, 'a 10-digit NPI');
const State = z.string().trim().toUpperCase().regex(/^[A-Z]{2}$/, 'a two-letter US state such as CA');
const Zip = z.string().trim().regex(/^\d{5}(-\d{4})?$/, 'a 5-digit ZIP code');
const Cents = z.number().int().min(0).max(100_000_000);
const ServiceCode = z.string().trim().min(1).max(12).regex(/^[A-Za-z0-9]+$/, 'a CPT/HCPCS code such as 99213');

/** The office identity and location fields shared by every provider reference. */
const OfficeFields = {
  npi: Npi.optional(),
  providerName: text(200).optional(),
  facilityName: text(200).optional(),
  address: text(300).optional(),
  city: text(100),
  state: State,
  zip: Zip.optional(),
  phone: text(40).optional(),
};

/** A provider's office: identity (`npi` or `providerName`) and location (`city`, `state`) are required. */
export const OfficeSchema = z.strictObject(OfficeFields).refine((o) => o.npi !== undefined || o.providerName !== undefined, {
  message: 'name the office: npi or providerName', path: ['providerName'],
});
export type Office = z.infer<typeof OfficeSchema>;

/** The agent's own cost figures, shown on the sheet as the agent's and checked against published rates. */
export const EstimatesSchema = z.strictObject({
  targetCents: Cents.optional().describe('What the agent expects the (target) provider to cost, in cents.'),
  sourceCents: Cents.optional().describe('move_referral: what the agent expects the current provider to cost, in cents.'),
  note: text(500).optional(),
});

export const MoveReferralParamsSchema = z.strictObject({
  specialty: text(100),
  referral: z.strictObject({ description: text(1000), writtenApprox: text(100).optional(), referenceNumber: text(100).optional() }),
  source: z.strictObject({ providerName: text(200).optional(), facilityName: text(200).optional(), phone: text(40).optional(),
    npi: Npi.optional(), city: text(100).optional(), state: State.optional(), zip: Zip.optional() }),
  target: OfficeSchema,
  serviceCode: ServiceCode.optional().describe('Beyond the spec: a catalog code, so the sheet shows both providers\' contracted rates.'),
  appointmentLabel: text(200).optional(),
  estimates: EstimatesSchema.optional(),
  savingsCents: z.number().int().min(-100_000_000).max(100_000_000).optional(),
  openings: z.array(text(200)).max(20).optional(),
});

export const BookAppointmentParamsSchema = z.strictObject({
  provider: OfficeSchema,
  specialty: text(100).optional(),
  appointmentLabel: text(200).optional(),
  reason: text(1000).optional(),
  serviceCode: ServiceCode.optional().describe('Beyond the spec: a catalog code, so the sheet shows the contracted rate.'),
  estimates: EstimatesSchema.optional(),
});

export const CancelOrRescheduleParamsSchema = z.strictObject({
  appointmentLabel: text(200),
  provider: OfficeSchema,
  newTimeLabel: text(200).optional(),
});

export const PARAMS_SCHEMAS = {
  move_referral: MoveReferralParamsSchema,
  book_appointment: BookAppointmentParamsSchema,
  cancel_or_reschedule: CancelOrRescheduleParamsSchema,
} as const;

export const CostSchema = z.strictObject({
  amountCents: z.number().int().min(50).max(1_000_000).describe('What the hold is for, in cents (at least 50, at most 10,000.00).'),
  description: text(300),
});

/** Idempotency keys: printable ASCII, as Stripe accepts (up to 255 characters). */
export const IdempotencyKeySchema = z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');

/**
 * POST /api/care-jobs. `params` is checked against the job type's schema in the handler (so an
 * unknown type is JOB_TYPE_NOT_AVAILABLE, not a schema error), and its errors name `params.<field>`.
 */
export const CreateCareJobInputSchema = z.strictObject({
  jobType: z.string().trim().min(1).max(64).describe('move_referral, book_appointment or cancel_or_reschedule; anything else is JOB_TYPE_NOT_AVAILABLE.'),
  patientId: z.string().min(1).max(64).optional().describe('From GET /api/profile; omit for the account holder.'),
  params: z.record(z.string(), z.unknown()).describe('Per job type: see the Care job table (service-spec.md).'),
  context: text(1000).optional().describe('A short plain-language reason, shown on the approval sheet as your note.'),
  cost: CostSchema.optional().describe('Only for actions that cost money: a manual-capture hold is collected on the approval page.'),
  planHints: PlanHintsSchema.optional().describe('Beyond the spec: the plan to price under when no coverage is linked.'),
  idempotencyKey: IdempotencyKeySchema.optional().describe('Or the Idempotency-Key header: a retry with the same key and body replays the first result.'),
});
export type CreateCareJobInput = z.infer<typeof CreateCareJobInputSchema>;

/** What the pricing engine knows for one provider under the user's plan (null fields: unknown). */
export const PriceCheckSchema = z.object({
  role: z.enum(['target', 'source']),
  found: z.boolean(),
  providerName: z.string().nullable(),
  npi: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  inNetwork: z.boolean().nullable(),
  networkStatus: z.string().nullable(),
  networkNote: z.string().nullable(),
  serviceCode: z.string().nullable(),
  serviceName: z.string().nullable(),
  rate: z.number().nullable(),
  rateRange: z.object({ min: z.number(), max: z.number(), median: z.number() }).nullable(),
  rateNote: z.string().nullable(),
  rangeNote: z.string().nullable(),
  note: z.string(),
});
export type PriceCheck = z.infer<typeof PriceCheckSchema>;

export const SheetSchema = z.object({
  title: z.string(),
  lines: z.array(z.object({ label: z.string(), value: z.string() })),
  agentNote: z.string().nullable(),
  cost: z.object({ amountCents: z.number().int(), currency: z.string(), description: z.string(), holdRequired: z.boolean() }).nullable(),
  pricing: z.object({
    plan: z.string(),
    planBasis: z.enum(['linked_coverage', 'agent_hints', 'none']),
    checks: z.array(PriceCheckSchema),
    note: z.string(),
  }),
  agentClaims: z.object({
    estimates: EstimatesSchema.nullable(),
    savingsCents: z.number().int().nullable(),
    flags: z.array(z.string()),
    note: z.string(),
  }).nullable(),
});
export type Sheet = z.infer<typeof SheetSchema>;

export const OutcomeSchema = z.strictObject({
  summary: text(1000).describe('What was done, in plain words (shown to the user and their agent).'),
  reference: text(100).optional().describe('A confirmation or reference number from the office.'),
  appointmentLabel: text(200).optional().describe('The booked time, as the office gave it.'),
});
export type Outcome = z.infer<typeof OutcomeSchema>;

export const CareJobViewSchema = z.object({
  status: z.enum(CARE_JOB_STATUSES),
  jobId: z.string(),
  jobType: z.enum(JOB_TYPES),
  tier: z.enum(CARE_JOB_TIERS),
  approvalUrl: z.string(),
  expiresAt: z.number().int().describe('Epoch milliseconds: 15 minutes after creation; a job still pending then is expired.'),
  sheet: SheetSchema,
  agentInstructions: z.array(z.string()),
  patientId: z.string().nullable(),
  createdAt: z.string(),
  payment: z.object({ required: z.boolean(), holdStatus: z.string().nullable() }),
  outcome: z.object({ summary: z.string(), reference: z.string().nullable(), appointmentLabel: z.string().nullable(), failed: z.boolean() }).nullable(),
});
export type CareJobView = z.infer<typeof CareJobViewSchema>;

export const CareJobRefSchema = z.strictObject({ jobId: z.string().min(1).max(64) });

export const CareTeamListInputSchema = z.strictObject({
  status: z.enum(['approved', 'in_progress', 'open', 'all']).optional().describe('open (default): approved and in_progress.'),
});

export const CareTeamJobSchema = z.object({
  jobId: z.string(), jobType: z.enum(JOB_TYPES), tier: z.enum(CARE_JOB_TIERS), status: z.enum(CARE_JOB_STATUSES),
  createdAt: z.string(), approvedAt: z.string().nullable(), assigneeId: z.string().nullable(),
  params: z.record(z.string(), z.unknown()), context: z.string().nullable(), sheet: SheetSchema,
  payment: z.object({ required: z.boolean(), holdStatus: z.string().nullable() }),
  outcome: CareJobViewSchema.shape.outcome,
});
export type CareTeamJob = z.infer<typeof CareTeamJobSchema>;
export const CareTeamListSchema = z.object({ jobs: z.array(CareTeamJobSchema) });

export const CareTeamActionInputSchema = z.strictObject({
  jobId: z.string().min(1).max(64),
  outcome: OutcomeSchema.optional().describe('Required to complete or fail: what happened.'),
});
