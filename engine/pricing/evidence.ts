/**
 * POST provider-evidence (service-spec.md, Pricing; issue 4, item 7): public-data evidence about
 * ONE provider by NPI: identity, the service, signals (Medicare volume for the code with its peer
 * percentile; the federal exclusion list, always relayed plainly; facility-level outcome context
 * for facilities only; explained absences), Medicare anchors for the code in both settings at the
 * provider's ZIP, and the words. Never ranks providers.
 */
import type { HandlerContext } from '../core/context.ts';
import { AppError } from '../core/errors.ts';
import type { ServiceCatalog } from './catalog.ts';
import type { EvidenceStore } from './evidence.ports.ts';
import { exclusionSignals, facilitySignals, volumeSignals, type Signal } from './evidence-signals.ts';
import { medicareAllowed, todayIso, type MedicareSetting } from './medicare.ts';
import { medicareStatus } from './medicare-status.ts';
import { contactFor, correctionsText, disclaimer, methodology, signalDefinitions } from './words.ts';

export interface ProviderEvidenceInput {
  npi: string;
  code?: string;
  patientId?: string;
}

export interface ProviderEvidenceResponse {
  provider: { npi: string; name: string; entityType: string; city: string | null; state: string | null };
  service: ReturnType<ServiceCatalog['serviceFor']>;
  signals: Signal[];
  medicareAnchors: { code: string; medicareAllowed: number; year: number; setting: string; service: string }[];
  signalDefinitions: Record<string, unknown>;
  methodology: string;
  corrections: string;
  disclaimer: string;
  needsMoreInfo: { field: string; ask: string; why: string; how: string; options: (string | Record<string, unknown>)[] }[];
}

/** A `code` ask listing codes the provider billed to Medicare that are in the catalog, else common visit codes. */
async function codeAsk(store: EvidenceStore, catalog: ServiceCatalog, npi: number): Promise<ProviderEvidenceResponse['needsMoreInfo'][number]> {
  const billed = store.hasRows('puf_provider_service') ? await store.billedCodes(npi, 40) : [];
  let options = billed.map((c) => catalog.serviceFor(c)).filter((s) => s !== null).slice(0, 10).map((s) => ({ code: s.code, name: s.name }));
  if (!options.length) options = ['99203', '99213', '99214', '99385', '99395'].map((c) => catalog.serviceFor(c)).filter((s) => s !== null).map((s) => ({ code: s.code, name: s.name }));
  return {
    field: 'code',
    ask: 'Which service is this about? Give its billing code (for example 99213 for an office visit).',
    why: 'Medicare volume and Medicare payment anchors are per service; without a code only identity and the exclusion check are shown.',
    how: 'Call again with `code` set to one of the options or any code from supportedServices in network-status.',
    options,
  };
}

/** Handler: provider evidence for one NPI (and optionally one catalog code). */
export async function providerEvidence(input: ProviderEvidenceInput, ctx: HandlerContext): Promise<ProviderEvidenceResponse> {
  const pricing = ctx.ports.pricing;
  const store = pricing?.evidence;
  const reference = pricing?.reference;
  if (!store || !reference) throw new AppError('pricing_data_unavailable', 'Provider evidence is not available on this server.');
  if (!/^\d{10}$/.test(input.npi)) throw new AppError('invalid_request', 'npi must be a 10-digit NPI.', { field: 'npi' });
  const npi = Number(input.npi);
  const asOf = todayIso(ctx.ports.clock.now());
  const catalog = await reference.catalog();
  let code: string | null = null;
  if (input.code !== undefined) {
    code = catalog.canonical(input.code);
    if (!code) {
      throw new AppError('unknown_code', `${input.code} is not a catalog code; network-status without code (or with include: ["supportedServices"]) lists the catalog in supportedServices.`, { field: 'code' });
    }
  }
  const p = await store.provider(npi);
  if (!p) throw new AppError('not_found', `No provider with NPI ${input.npi} is in the NPI registry data; check the number or find the provider with network-status.`, { field: 'npi' });
  const service = code ? catalog.serviceFor(code) : null;
  const name = p.name;

  const pufLoaded = store.hasRows('puf_provider_service');
  // Independent lookups run concurrently (the snapshot pool has several connections).
  const [exclusions, status, volume, tables] = await Promise.all([
    store.hasRows('leie') ? store.exclusions(npi) : Promise.resolve([]),
    medicareStatus(store, npi, asOf),
    code && pufLoaded ? store.volume(npi, code) : Promise.resolve([]),
    reference.medicare(),
  ]);
  const signals: Signal[] = [...exclusionSignals(exclusions, store.hasRows('leie'), asOf)];
  if (status.optedOut) {
    signals.push({ type: 'medicare_optout', display: `${name} has opted out of Medicare: Medicare pays nothing for their services and patients pay a private-contract price. ${status.basis}`, level: 'info', verdict: 'opted_out' });
  }
  if (code && service) {
    signals.push(...volumeSignals({ rows: volume, pufLoaded, code, serviceName: service.name, providerName: name }));
  }
  signals.push(...facilitySignals(p));
  if (p.deactivation_date) {
    signals.push({ type: 'no_data', display: `This NPI was deactivated in the NPI registry on ${p.deactivation_date}; current evidence may be missing for that reason.`, level: 'info', verdict: 'deactivated' });
  }

  const medicareAnchors: ProviderEvidenceResponse['medicareAnchors'] = [];
  if (code && service && p.zip5) {
    for (const setting of ['non-facility', 'facility'] as MedicareSetting[]) {
      const m = medicareAllowed(tables, { code, zip5: p.zip5, setting, asOf });
      if (m.medicareAllowed !== null && m.year !== null) {
        medicareAnchors.push({ code, medicareAllowed: m.medicareAllowed, year: m.year, setting, service: `${service.name} (Medicare fee schedule ${m.year}, ${m.locality?.name ?? 'provider locality'}, ${setting})` });
      }
    }
  }

  const needsMoreInfo: ProviderEvidenceResponse['needsMoreInfo'] = [];
  if (!code) needsMoreInfo.push(await codeAsk(store, catalog, npi));

  return {
    provider: {
      npi: input.npi,
      name,
      entityType: p.entity_type === 2 ? 'organization' : 'individual',
      city: p.city,
      state: p.state,
    },
    service,
    signals,
    medicareAnchors,
    signalDefinitions: signalDefinitions(),
    methodology: methodology(),
    corrections: correctionsText(contactFor(ctx.urls.baseUrl)),
    disclaimer: disclaimer(),
    needsMoreInfo,
  };
}
