/**
 * Binds network-status to the real reference modules (H6): the payers registry (payers.ts), the
 * service catalog (catalog.ts), the Medicare fee schedule, patient share and status
 * (medicare.ts, medicare-share.ts, medicare-status.ts) and the shared words (words.ts), through the
 * snapshot's ports.
 */
import { AppError } from '../core/errors.ts';
import type { PricingPorts } from './ports.ts';
import type { NetworkStatusHelpers } from './network-status.deps.ts';
import type { PayerInfo } from './plan-resolution.types.ts';
import type { PayerEntry } from './payers.ts';
import { medicareAllowed, medicareAnchor, todayIso } from './medicare.ts';
import { medicareBlock, patientShare, type CoverageKind } from './medicare-share.ts';
import { medicareStatuses } from './medicare-status.ts';
import * as words from './words.ts';
import { BILLING_OUTLOOK_DEFINITIONS } from './network-status.words.ts';

/** The registry key of Original Medicare (data/payers.json). */
export const MEDICARE_PAYER_KEY = 'medicare';

const toInfo = (p: PayerEntry): PayerInfo => ({
  key: p.key, label: p.label, reportingEntityNames: p.reportingEntityNames, exactPlanIdentifiers: p.exactPlanIdentifiers,
  groupNumberStates: p.groupNumberStates, coverage: p.coverage, blueCard: p.blueCard,
});

/** Helpers over the snapshot's reference and evidence stores. */
export function helpersFor(pricing: PricingPorts): NetworkStatusHelpers {
  const ref = pricing.reference;
  if (!ref) throw new AppError('pricing_data_unavailable', 'The pricing reference data (catalog, payers, Medicare fee schedule) is not loaded on this server.');
  const evidence = pricing.evidence;
  return {
    async resolvePayer(name) {
      const p = (await ref.payers()).resolve(name);
      return p ? toInfo(p) : null;
    },
    async listPayers() {
      const reg = await ref.payers();
      return reg.list().map((p) => reg.byKey(p.key)).filter((p): p is PayerEntry => p !== null).map(toInfo);
    },
    async entityResolver() {
      const reg = await ref.payers();
      return (name) => {
        const p = reg.forReportingEntity(name);
        return p ? toInfo(p) : null;
      };
    },
    async serviceFor(code) {
      return (await ref.catalog()).serviceFor(code);
    },
    async codeType(code) {
      return (await ref.catalog()).entry(code)?.code_type ?? null;
    },
    async supportedServices() {
      return (await ref.catalog()).supportedServices();
    },
    async relatedOptions(code) {
      return (await ref.catalog()).relatedOptions(code).map((r) => ({ ...r }));
    },
    async medicareAnchor({ code, zip5, setting, rate, modifier }) {
      if (!zip5) return null;
      const allowed = medicareAllowed(await ref.medicare(), { code, zip5, setting, ...(modifier ? { modifier } : {}) });
      const a = medicareAnchor(allowed, rate);
      // The source names the component, so an agent does not read a 26/TC amount as the global fee.
      const words = modifier === '26' ? 'professional component' : modifier === 'TC' ? 'technical component' : null;
      return a && modifier ? { ...a, source: `${a.source}, modifier ${modifier}${words ? ` (${words})` : ''}` } : a;
    },
    async medicareBlock({ payerKey, payerName }) {
      if (payerKey !== MEDICARE_PAYER_KEY) return null;
      const tables = await ref.medicare();
      const year = Number(todayIso().slice(0, 4));
      const params = tables.params(year) ?? tables.params(year - 1);
      if (!params) return null;
      // "Medicare" alone may mean Medicare Advantage; "Original"/"Traditional"/"Part B" says which.
      const assumed = !/original|traditional|part\s*b/i.test(payerName ?? '');
      return medicareBlock(params, { assumed });
    },
    async medicareStatuses(npis) {
      if (!evidence || !npis.length) return new Map();
      return medicareStatuses(evidence, npis, todayIso());
    },
    async patientShare({ payerKey, rate, medicareAllowed: allowed, medicare, status }) {
      const coverage: CoverageKind = payerKey === MEDICARE_PAYER_KEY ? 'original_medicare' : payerKey ? 'commercial' : 'unknown';
      const tables = await ref.medicare();
      const params = medicare ? tables.params(medicare.year) : undefined;
      return patientShare({
        coverage, allowed: coverage === 'original_medicare' ? allowed : rate, params,
        participation: 'unknown', optedOut: status?.optedOut ?? false,
      });
    },
    words: {
      methodology: words.methodology,
      methodologyShort: words.methodologyShort,
      disclaimer: words.disclaimer,
      billingEvidenceDefinitions: () => ({ ...words.billingEvidenceDefinitions(), ...BILLING_OUTLOOK_DEFINITIONS }),
      signalDefinitions: words.signalDefinitions,
      networkNote: words.networkNote,
      rateFetchNote: words.rateFetchNote,
    },
  };
}
