/**
 * The pricing operations on both hosts (service-spec.md, Pricing; issue 4, items 1 and 10).
 *
 * Public host ({pricing_url}/api/pricing.v1…): optional bearer, pricing-public error bodies
 * {error, message, field, retryAfterSeconds}, anonymous per-IP limits (Limits: network-status 20/min,
 * provider-evidence 60/min). Main host ({base_url}/api/pricing/…): bearer required, `patientId`,
 * pricing-main error bodies {error, agentInstructions}. The main-host variants are the MCP tools
 * (MCP always carries a bearer). Every variant calls the same handler core; nothing here knows
 * about Fastify or MCP.
 */
import { z } from 'zod';
import type { HandlerContext } from '../core/context.ts';
import { AppError } from '../core/errors.ts';
import { defineOperation, type AnyOperation, type ToolAnnotations } from '../core/operation.ts';
import { requireAccount } from '../profile/onboarding.ts';
import {
  NetworkStatusMainRequestSchema, NetworkStatusRequestSchema, NetworkStatusResponseSchema, PayersResponseSchema,
  PricingIndexResponseSchema, ProviderEvidenceMainRequestSchema, ProviderEvidenceRequestSchema, ProviderEvidenceResponseSchema,
} from './pricing.schema.ts';
import { networkStatus } from './network-status.ts';
import { providerEvidence } from './evidence.ts';
import { listPayers } from './payers.ts';
import { pricingIndex } from './index-info.ts';
import { networkStatusSummary } from './network-status.summary.ts';

/** Pricing reads published files only: safe to retry, no side effects, a closed data set. */
const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The anonymous limits of service-spec.md, Limits; the index reports the same figures. */
export const PRICING_RATE_LIMITS = {
  networkStatus: { bucket: 'network-status', anonymousPerMinute: 20 },
  providerEvidence: { bucket: 'provider-evidence', anonymousPerMinute: 60 },
} as const;

/**
 * Fails with 503 pricing_data_unavailable when the server has no published snapshot. That is an
 * operator condition, not a caller mistake, so it is never a 4xx.
 */
export function requireSnapshot(ctx: HandlerContext): void {
  if (!ctx.ports.pricing?.snapshot()) {
    throw new AppError('pricing_data_unavailable',
      'No pricing data is published on this server yet. The operator builds it with `carebridge demo` (demo data) or `carebridge ingest` then `carebridge snapshot publish`; retry later.');
  }
}

/**
 * A patientId must belong to the caller's account; a foreign id is simply not found. On the public
 * host it needs a bearer (service-spec.md, Pricing: "a bearer token adds ... family-member
 * patientId"): anonymous callers get 401 naming the field rather than a silently ignored id.
 */
async function checkPatient(patientId: string | undefined, ctx: HandlerContext): Promise<void> {
  if (patientId === undefined) return;
  if (ctx.caller.kind === 'anonymous') {
    throw new AppError('not_authenticated', 'patientId selects a family member of a signed-in account: send a bearer token with it, or omit it.', { field: 'patientId' });
  }
  const { store, account } = await requireAccount(ctx);
  const patient = await store.getPatient(account.id, patientId);
  if (!patient) throw new AppError('not_found', 'No patient with this patientId belongs to your account; GET /api/profile lists them.', { field: 'patientId' });
}

const CONSUMER_RULES = [
  'Read plan.basis before quoting anything.',
  'Relay every note-style field as written (any key ending in Note, plus note, rateAssessment, statusNote) and always relay disclaimer.',
  'Answer each needsMoreInfo ask by asking the user, then call again with planHints filled in (planHints.unavailable: true if they cannot say).',
  'Read billingOutlook before quoting a number; while it is partitioned or carries a warning, present the range and its ask, not one price.',
  'inNetwork: false means not found in the published files, never a hard out-of-network verdict; null means unknown (no plan resolved, or the payer\'s files are not loaded: networkStatus says which).',
  'supportedServices (the catalog) comes when code is absent or unpriced, or with include: ["supportedServices"]; include: ["definitions"] adds the full methodology and definitions.',
].join(' ');

const NETWORK_STATUS_DESCRIPTION = [
  'Is a named clinic, brand, facility or clinician in network for the user\'s health plan, and (with `code`) what does the insurer\'s own published rate file say it pays them for that service, what will the user likely pay, and how does it compare to Medicare.',
  'Call this first for any named provider; consumer brand names work; add city or zip to tell same-named places apart; `npi` is never required.',
  'Pass planHints (payerName, employerName, planName, groupNumber) when the user has them.',
  CONSUMER_RULES,
].join(' ');

const PROVIDER_EVIDENCE_DESCRIPTION = [
  'Public-data evidence about ONE provider by 10-digit NPI (resolve the NPI with network status first): Medicare-derived experience with a service, the federal exclusion list, facility-level outcome context (never the clinician\'s own outcome), and Medicare payment anchors, or an explained absence.',
  'Relay each signals[].display sentence as written; evidence is never a ranking and absence of data is never negative evidence; an exclusion signal is a legal-status safety notice and is always relayed plainly; check service.appliesTo against the patient before relaying a number; Medicare anchors are reference points, not the patient\'s price. Always relay disclaimer.',
].join(' ');

const PAYERS_DESCRIPTION = 'The payers the pricing data covers, with the names planHints.payerName accepts and which identifiers (employerName, planName, groupNumber) reach an exact plan. Call it to map what the user calls their insurer to an accepted name.';

// The public bodies also take patientId, which only a bearer caller may send (see checkPatient).
const PATIENT_ID = { patientId: z.string().min(1).max(64).optional().describe('With a bearer token: a family member from the profile.') };
const PublicNetworkStatusRequestSchema = NetworkStatusRequestSchema.extend(PATIENT_ID);
const PublicProviderEvidenceRequestSchema = ProviderEvidenceRequestSchema.extend(PATIENT_ID);

// --- public host ({pricing_url}) --------------------------------------------------------------

export const pricingIndexOp = defineOperation({
  name: 'pricing_index',
  title: 'Pricing API index',
  description: 'Pricing API index: version, data vintage, region, auth, endpoints, rate limits, disclaimer and terms.',
  input: z.strictObject({}),
  output: PricingIndexResponseSchema,
  annotations: READ_ONLY,
  auth: 'optional',
  mcp: false,
  errorShape: 'pricing-public',
  rest: [{ method: 'GET', path: '/api/pricing.v1', surface: 'pricing' }],
  // The index answers even without a snapshot (dataVintage null) so operators can see the state.
  handler: async (_input, ctx) => pricingIndex(ctx),
});

export const networkStatusPublicOp = defineOperation({
  name: 'pricing_network_status',
  title: 'Network status and rates (public)',
  description: NETWORK_STATUS_DESCRIPTION,
  input: PublicNetworkStatusRequestSchema,
  output: NetworkStatusResponseSchema,
  annotations: READ_ONLY,
  auth: 'optional',
  mcp: false,
  errorShape: 'pricing-public',
  rateLimit: PRICING_RATE_LIMITS.networkStatus,
  rest: [{ method: 'POST', path: '/api/pricing.v1/network-status', surface: 'pricing' }],
  handler: async (input, ctx) => {
    requireSnapshot(ctx);
    await checkPatient(input.patientId, ctx);
    return networkStatus(input, ctx);
  },
});

export const providerEvidencePublicOp = defineOperation({
  name: 'pricing_provider_evidence',
  title: 'Provider evidence (public)',
  description: PROVIDER_EVIDENCE_DESCRIPTION,
  input: PublicProviderEvidenceRequestSchema,
  output: ProviderEvidenceResponseSchema,
  annotations: READ_ONLY,
  auth: 'optional',
  mcp: false,
  errorShape: 'pricing-public',
  rateLimit: PRICING_RATE_LIMITS.providerEvidence,
  rest: [{ method: 'POST', path: '/api/pricing.v1/provider-evidence', surface: 'pricing' }],
  handler: async (input, ctx) => {
    requireSnapshot(ctx);
    await checkPatient(input.patientId, ctx);
    return providerEvidence({ npi: input.npi, ...(input.code !== undefined ? { code: input.code } : {}) }, ctx);
  },
});

export const listPayersOp = defineOperation({
  name: 'list_payers',
  title: 'Payers covered',
  description: PAYERS_DESCRIPTION,
  input: z.strictObject({}),
  output: PayersResponseSchema,
  annotations: READ_ONLY,
  auth: 'optional',
  errorShape: 'pricing-public',
  rest: [{ method: 'GET', path: '/api/pricing.v1/payers', surface: 'pricing' }],
  handler: async (_input, ctx) => {
    requireSnapshot(ctx);
    return listPayers(ctx);
  },
});

// --- main host ({base_url}) and MCP ------------------------------------------------------------

export const checkNetworkStatusOp = defineOperation({
  name: 'check_network_status',
  title: 'Check network status and prices',
  description: `${NETWORK_STATUS_DESCRIPTION} patientId (from the profile) selects a family member; omit it for the account holder.`,
  input: NetworkStatusMainRequestSchema,
  output: NetworkStatusResponseSchema,
  annotations: READ_ONLY,
  auth: 'required',
  errorShape: 'pricing-main',
  rest: [{ method: 'POST', path: '/api/pricing/network-status', surface: 'main' }],
  mcpText: networkStatusSummary,
  handler: async (input, ctx) => {
    requireSnapshot(ctx);
    await checkPatient(input.patientId, ctx);
    return networkStatus(input, ctx);
  },
});

export const getProviderEvidenceOp = defineOperation({
  name: 'get_provider_evidence',
  title: 'Provider evidence',
  description: PROVIDER_EVIDENCE_DESCRIPTION,
  input: ProviderEvidenceMainRequestSchema,
  output: ProviderEvidenceResponseSchema,
  annotations: READ_ONLY,
  auth: 'required',
  errorShape: 'pricing-main',
  rest: [{ method: 'POST', path: '/api/pricing/provider-evidence', surface: 'main' }],
  handler: async (input, ctx) => {
    requireSnapshot(ctx);
    await checkPatient(input.patientId, ctx);
    return providerEvidence({ npi: input.npi, ...(input.code !== undefined ? { code: input.code } : {}) }, ctx);
  },
});

/** Pricing operations on both hosts, in the order the index lists them. */
export const pricingOperations: AnyOperation[] = [
  pricingIndexOp, networkStatusPublicOp, providerEvidencePublicOp, listPayersOp, checkNetworkStatusOp, getProviderEvidenceOp,
];
