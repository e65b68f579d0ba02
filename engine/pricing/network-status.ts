/**
 * POST network-status (service-spec.md, Pricing; issue 4, items 2-4): is a named provider in
 * network for the user's plan and, with `code`, what the insurer's published files say it pays.
 * Transport-free handler: validated input + HandlerContext -> NetworkStatusResponse.
 *
 * Code rule (decided from the spec): a code that is not a catalog code is a caller mistake, 400
 * `unknown_code` with field `code`; a catalog code with no published rate anywhere in the snapshot
 * is answered, with a `code` ask listing related catalog codes.
 */
import type { HandlerContext } from '../core/context.ts';
import { AppError } from '../core/errors.ts';
import type { NetworkStatusRequest, NetworkStatusResponse, Match } from './pricing.schema.ts';
import { resolvePlan } from './plan-resolution.ts';
import type { Ask } from './plan-resolution.types.ts';
import { findProviders, resolveLocation } from './provider-search.ts';
import { evaluateNetwork } from './network-status.network.ts';
import { buildMatch } from './network-status.match.ts';
import { organizations } from './network-status.orgs.ts';
import { codeRef } from './rates.ts';
import type { NetworkStatusHelpers } from './network-status.deps.ts';
import type { FilePlanRow, RateDistribution } from './network-status.ports.ts';
import { helpersFor } from './network-status.wiring.ts';
import { medicareTypeAsk } from './medicare-share.ts';
import { isOriginalMedicare, ORIGINAL_MEDICARE } from './network-status.words.ts';

/** Default and maximum `limit` (service-spec.md, Limits). */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export type NetworkStatusInput = NetworkStatusRequest & { patientId?: string };

/** Cross-field rules the schema cannot name a field for (issue 4, Tests: lat without long, empty body). */
export function validateNetworkStatus(input: NetworkStatusInput): void {
  if (input.latitude !== undefined && input.longitude === undefined) throw new AppError('invalid_request', 'latitude was given without longitude; send both or neither.', { field: 'longitude' });
  if (input.longitude !== undefined && input.latitude === undefined) throw new AppError('invalid_request', 'longitude was given without latitude; send both or neither.', { field: 'latitude' });
  if (!input.providerName && !input.npi) throw new AppError('invalid_request', 'Name the provider: send providerName (a clinic, brand, facility or clinician name) or a 10-digit npi.', { field: 'providerName' });
  if (input.limit !== undefined && (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > MAX_LIMIT)) throw new AppError('invalid_request', `limit must be an integer from 1 to ${MAX_LIMIT}.`, { field: 'limit' });
}

/** The network-status handler. `helpers` defaults to the real catalog/payer/Medicare/words modules. */
export async function networkStatus(input: NetworkStatusInput, ctx: HandlerContext, helpers?: NetworkStatusHelpers): Promise<NetworkStatusResponse> {
  validateNetworkStatus(input);
  const pricing = ctx.ports.pricing;
  const snapshot = pricing?.snapshot() ?? null;
  if (!pricing || !snapshot || !pricing.network || !pricing.providers) {
    throw new AppError('pricing_data_unavailable', 'No pricing data is published on this server yet; retry later.');
  }
  const { network, providers } = pricing;
  const h = helpers ?? helpersFor(pricing);
  const limit = input.limit ?? DEFAULT_LIMIT;
  const asks: Ask[] = [];

  // Service code: not in the catalog -> 400; in the catalog -> priced per match.
  const service = input.code ? await h.serviceFor(input.code) : null;
  if (input.code && !service) throw new AppError('unknown_code', `${input.code} is not a catalog code; supportedServices in any network-status answer lists the codes priced.`, { field: 'code' });
  const code = service ? codeRef(service.code, await h.codeType(service.code)) : null;

  // Independent lookups run concurrently (the pool holds several DuckDB connections).
  const userId = ctx.caller.kind === 'user' ? ctx.caller.userId : null;
  const [priced, plan, found] = await Promise.all([
    code ? network.codeHasRates(code) : Promise.resolve(true),
    resolvePlan({ hints: input.planHints ?? {}, userId, patientId: input.patientId ?? null }, {
      network, synthetic: snapshot.synthetic, resolvePayer: (n) => h.resolvePayer(n), listPayers: () => h.listPayers(),
      ...(ctx.ports.linkedCoverage ? { linkedCoverage: ctx.ports.linkedCoverage } : {}),
    }),
    resolveLocation(input, providers).then(async (loc) => ({ loc, candidates: await findProviders({ providerName: input.providerName, npi: input.npi, limit }, loc, providers) })),
  ]);
  const { loc, candidates } = found;
  if (service && !priced) {
    asks.push({
      field: 'code', ask: `No published rates for ${service.code} (${service.name}) in the current data. Is one of these related services what the user needs?`,
      why: 'Rates come from insurers’ published files; this code appears in none of the ingested files, so no price can be quoted for it.',
      how: 'Call again with code set to one of the options, or without code for network status only.',
      options: await h.relatedOptions(service.code),
    });
  }
  asks.push(...plan.asks);

  const scope = plan.payer ? plan.fileKeys : null;
  const npis = candidates.map((c) => c.provider.npi);
  const entityPayer = await h.entityResolver();
  const payerOf = (r: FilePlanRow): string => r.payer_key ?? (r.reporting_entity_name ? entityPayer(r.reporting_entity_name)?.key : null) ?? `entity:${r.reporting_entity_name ?? 'unknown'}`;
  const [batch, payers, affiliations, medicare, statuses] = await Promise.all([
    evaluateNetwork(candidates.map((c) => c.provider), scope, code, network, plan.payer?.key ?? null, payerOf),
    h.listPayers(),
    npis.length ? providers.affiliations(candidates.filter((c) => c.provider.entity_type === 1).map((c) => c.provider.npi)) : Promise.resolve([]),
    h.medicareBlock({ payerKey: plan.payer?.key ?? null, payerName: input.planHints?.payerName ?? null, hasCode: !!code }),
    h.medicareStatuses(npis),
  ]);
  const payerLabels = new Map(payers.map((p) => [p.key, p.label]));
  const npiTins = [...batch.groups.values()].filter((g) => g.tin_type === 'npi' && g.tin_value).map((g) => Number(g.tin_value));
  const tinNames = new Map(npiTins.length ? (await providers.byNpis(npiTins)).map((r) => [String(r.npi), r.name]) : []);
  // The numbers assume Original Medicare: the person must confirm it is not Medicare Advantage.
  if (medicare?.assumed && input.planHints?.unavailable !== true) asks.push(medicareTypeAsk());

  const dists = new Map<string, Promise<RateDistribution | null>>();
  const dist = (state: string | null): Promise<RateDistribution | null> => {
    if (!code) return Promise.resolve(null);
    const k = state ?? '';
    let p = dists.get(k);
    if (!p) {
      p = network.localDistribution(code, scope ? [...scope] : [], state);
      dists.set(k, p);
    }
    return p;
  };
  const matches: Match[] = [];
  for (const c of candidates) {
    const net = batch.byNpi.get(c.provider.npi);
    if (!net) continue;
    matches.push(await buildMatch(c, net, {
      plan, service, code: code?.code ?? null, batch, dist, affiliations, tinNames, payerLabels, medicare, statuses, helpers: h, locationState: loc.block.state,
    }));
  }

  const absent: string[] = [];
  if (!network.hasRows('providers')) absent.push('The snapshot holds no provider registry (NPPES) data, so names cannot be resolved.');
  if (!network.hasRows('group_members') && !network.hasRows('provider_groups')) absent.push('The snapshot holds no insurer network files, so network status cannot be checked.');
  if (code && !network.hasRows('rates')) absent.push('The snapshot holds no contracted rates.');
  const notFound = !matches.length ? ` No provider name in this snapshot matches “${input.providerName}”; check the spelling or add a city or ZIP.` : '';

  return {
    service,
    supportedServices: await h.supportedServices(),
    location: loc.block,
    matches,
    organizations: organizations(matches),
    plan: plan.block,
    medicare,
    rateFetchNote: h.words.rateFetchNote({ dataVintage: snapshot.dataVintage, synthetic: snapshot.synthetic, hasCode: !!code }),
    networkNote: `${isOriginalMedicare(plan.payer?.key) ? ORIGINAL_MEDICARE.networkNote : h.words.networkNote({ matchTier: plan.exact ? 'exact_plan' : plan.block.matchTier, payerLabel: plan.block.payerLabel })}${notFound}${absent.length ? ` ${absent.join(' ')}` : ''}`,
    billingEvidenceDefinitions: h.words.billingEvidenceDefinitions(),
    evidenceCardEligible: matches.length === 1 || (matches.length > 0 && matches[0]!.npi === Number(input.npi)),
    signalDefinitions: h.words.signalDefinitions(),
    methodology: h.words.methodology(),
    needsMoreInfo: asks,
    disclaimer: h.words.disclaimer(),
  };
}
