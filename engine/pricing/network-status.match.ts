/**
 * Assembles one `matches[]` item (service-spec.md, Pricing: every field of a match) from the
 * provider row, its network evaluation, rates, billing outlook and the Medicare helpers.
 */
import type { Match } from './pricing.schema.ts';
import type { Candidate } from './provider-search.ts';
import type { NpiNetwork, BatchNetwork } from './network-status.network.ts';
import type { Affiliation, RateDistribution } from './network-status.ports.ts';
import type { MedicareBlock, MedicareStatus, NetworkStatusHelpers, Service } from './network-status.deps.ts';
import type { ResolvedPlan } from './plan-resolution.types.ts';
import { assessRate, pfsComponent, summarizeRates } from './rates.ts';
import { billingOutlook } from './billing-outlook.ts';
import { isOriginalMedicare, ORIGINAL_MEDICARE } from './network-status.words.ts';
import { matchNote, networkStatusOf } from './network-status.note.ts';
import { countOf } from './words.ts';

export interface MatchContext {
  plan: ResolvedPlan;
  service: Service | null;
  code: string | null;
  batch: BatchNetwork;
  dist: (state: string | null) => Promise<RateDistribution | null>;
  affiliations: Affiliation[];
  tinNames: Map<string, string>;
  payerLabels: Map<string, string>;
  medicare: MedicareBlock | null;
  statuses: Map<number, MedicareStatus>;
  helpers: NetworkStatusHelpers;
  locationState: string | null;
}

/** Words that signal a federal site (VA, IHS, military): commercial TiC files rarely cover them. */
const FEDERAL = /\b(veterans affairs|va medical|indian health|naval|army|air force|military|department of defense)\b/i;

/** Taxonomy words that fit a catalog category (a hint, never a verdict). */
const CATEGORY_FIT: [RegExp, RegExp][] = [
  [/imaging|radiology|mri|ct|x-ray|ultrasound|mammo/i, /radiolog|imaging|diagnostic|hospital|clinic/i],
  [/lab|pathology/i, /laborator|patholog|hospital|clinic/i],
  [/evaluation|management|office visit|primary|preventive/i, /family|internal|pediatric|general|clinic|medicine|nurse practitioner|physician assistant|federally qualified/i],
  [/surgery|surgical|procedure/i, /surg|hospital|ambulatory/i],
  [/maternity|delivery|obstetric/i, /obstetric|gynecolog|hospital|midwife/i],
  [/physical therapy|rehab/i, /physical therap|rehabilitation|hospital/i],
];

function specialtyFit(service: Service | null, taxonomyDescription: string | null): { fit: string | null; note: string | null } {
  if (!service) return { fit: null, note: null };
  if (!taxonomyDescription) return { fit: 'unknown', note: `The registry gives no specialty for this provider; confirm they perform ${service.name}.` };
  const rule = CATEGORY_FIT.find(([cat]) => cat.test(`${service.category} ${service.name}`));
  if (!rule) return { fit: 'unknown', note: `Registered specialty: ${taxonomyDescription}. Confirm with the provider that they perform ${service.name}.` };
  return rule[1].test(taxonomyDescription)
    ? { fit: 'likely', note: `Registered specialty (${taxonomyDescription}) fits ${service.category}.` }
    : { fit: 'unlikely', note: `Registered specialty (${taxonomyDescription}) does not usually perform ${service.name}; they may refer elsewhere.` };
}

function identity(c: Candidate): { identityNote: string; identityCaution: string | null; deactivated: boolean } {
  const p = c.provider;
  const deactivated = !!p.deactivation_date && (!p.reactivation_date || p.reactivation_date < p.deactivation_date);
  const kind = p.entity_type === 1 ? 'Individual clinician (NPI type 1)' : 'Organization (NPI type 2)';
  const parts = [p.entity_type === 0 ? 'Not in the NPPES registry data of this snapshot: identity unverified.' : `${kind} registered in NPPES${p.city ? ` at ${p.city}${p.state ? `, ${p.state}` : ''}` : ''}.`];
  if (p.subpart) parts.push(`An organization subpart${p.parent_org_name ? ` of ${p.parent_org_name}` : ''}: a site or department that usually bills under its parent's tax ID.`);
  if (deactivated) parts.push(`This NPI was deactivated on ${p.deactivation_date}: it can no longer bill, so rates listed under it may be stale.`);
  const cautions: string[] = [];
  if (p.entity_type === 0) cautions.push('This NPI could not be checked against the provider registry: confirm who it belongs to before relying on the answer.');
  if (deactivated) cautions.push('Deactivated NPI: confirm the provider’s current NPI before relying on any answer.');
  if (c.fuzzy) cautions.push('Matched by a similar, not identical, name: confirm it is the provider the user means.');
  if (c.brand) cautions.push(`“${c.brand}” is a consumer brand; the registry lists the legal entity ${p.name}.`);
  if (p.mailing_state && p.state && p.mailing_state !== p.state) cautions.push(`Mailing address is in ${p.mailing_state}, practice location in ${p.state}.`);
  return { identityNote: parts.join(' '), identityCaution: cautions.length ? cautions.join(' ') : null, deactivated };
}

/** Builds the match item. */
type Range = { min: number; max: number; median: number } | null;
/**
 * rateRange is for when several prices apply and the exact one is not known: a one-value range
 * beside that very rate says nothing more, so it is sent as null (answer size, issue 37, item 9).
 */
export function rangeBeside(rate: number | null, range: Range): Range {
  return rate !== null && range && range.min === rate && range.max === rate ? null : range;
}

export async function buildMatch(c: Candidate, net: NpiNetwork, m: MatchContext): Promise<Match> {
  const p = c.provider;
  const plan = m.plan;
  const listed = net.files.length > 0;
  const networkStatus = networkStatusOf(plan, listed);
  const inNetwork = networkStatus === 'listed' ? true : networkStatus === 'plan_unknown' || networkStatus === 'payer_data_not_loaded' ? null : false;
  const payerLabel = plan.payer?.label ?? null;
  const scopeWords = plan.payer
    ? plan.exact ? `${payerLabel}'s published files for this plan` : `${payerLabel}'s published files across ${countOf(plan.plans.length, 'plan')}`
    : 'every payer’s published files in the snapshot (no plan resolved)';
  const id = identity(c);
  const fit = specialtyFit(m.service, p.taxonomy_description);
  const affs = m.affiliations.filter((a) => a.npi === p.npi);
  const otherPayers = net.otherPayers.map((o) => ({
    payer: o.payerKey.startsWith('entity:') ? o.payerKey.slice(7) : o.payerKey,
    payerLabel: m.payerLabels.get(o.payerKey) ?? o.reportingEntity ?? o.payerKey.replace(/^entity:/, ''),
    inNetwork: true,
  }));

  const medicareOnly = isOriginalMedicare(plan.payer?.key);
  const status = m.statuses.get(p.npi) ?? null;
  const note = matchNote(networkStatus, { plan, status, files: net.files.length, otherPayers: otherPayers.map((o) => o.payerLabel) });

  let rate: number | null = null;
  let rs = summarizeRates([], { exactPlan: plan.exact, scopeWords });
  let typical: { typicalRate: number | null; rateAssessment: string | null } = { typicalRate: null, rateAssessment: null };
  let bill: ReturnType<typeof billingOutlook> | null = null;
  let anchor = null;
  let serviceEvidence: string | null = null;
  let serviceAvailabilityNote: string | null = null;
  if (m.code) {
    rs = summarizeRates(net.rates, { exactPlan: plan.exact, scopeWords });
    const dist = await m.dist(m.locationState ?? p.state);
    bill = billingOutlook({
      rows: net.rates, groups: m.batch.groups, groupFiles: m.batch.groupFiles, memberGroups: net.scopedGroups, tinNames: m.tinNames,
      affiliations: affs, parentOrganization: p.parent_org_name, brand: c.brand, exactPlan: plan.exact, scopeWords, dist, planKnown: plan.payer !== null,
    });
    const warned = bill.outlook !== null && (bill.outlook.mode === 'partitioned' || bill.outlook.warning !== null);
    rate = warned ? null : bill.outlook?.mode === 'facility_plus_professional' ? bill.rate : rs.rate;
    typical = assessRate(rate ?? rs.rateRange?.median ?? null, dist);
    if (rate === null && rs.rateRange && typical.rateAssessment) typical.rateAssessment = `The median of this provider’s range is ${typical.rateAssessment.charAt(0).toLowerCase()}${typical.rateAssessment.slice(1)}`;
    const setting = rs.setting === 'facility' ? 'facility' : 'non-facility';
    // rateRatio is rate / medicareAllowed (spec): no ratio while there is no single rate. A rate
    // for the professional (26) or technical (TC) component is compared with that component's
    // Medicare amount, not the global one; rows mixing components get the global amount, no ratio.
    const component = bill?.outlook?.mode === 'facility_plus_professional' ? '' : pfsComponent(net.rates);
    anchor = await m.helpers.medicareAnchor({ code: m.code, zip5: p.zip5, setting, rate: component === null ? null : rate, modifier: component ?? '' });
    serviceEvidence = net.rates.length ? `${countOf(net.rates.length, 'published rate row')} for ${m.code} under this provider's billing entities.` : `No published rate for ${m.code} under this provider's billing entities in ${scopeWords}.`;
    serviceAvailabilityNote = net.rates.length
      ? 'A published rate shows a contract for the code, not how often the provider performs it (provider-evidence shows Medicare volume).'
      : 'No rate for this code does not mean the provider does not offer it; the contract may price it under another code or a percentage of charges.';
    if (medicareOnly && !net.rates.length) {
      rs.rateNote = ORIGINAL_MEDICARE.rateNote(m.code);
      serviceEvidence = ORIGINAL_MEDICARE.serviceEvidence(m.code);
      serviceAvailabilityNote = null;
    }
    if (!rs.rateNote && !net.rates.length) {
      rs.rateNote = networkStatus === 'payer_data_not_loaded'
        ? `No rate: ${payerLabel}'s in-network files for this plan are not loaded in this snapshot.`
        : listed ? `Listed, but ${scopeWords} publish no rate for ${m.code} under this provider's billing entities.` : `No rate: the provider was not found in ${scopeWords}.`;
    }
  }
  const share = m.code ? await m.helpers.patientShare({ payerKey: plan.payer?.key ?? null, rate, medicareAllowed: anchor?.medicareAllowed ?? null, medicare: m.medicare, status }) : null;

  return {
    npi: p.npi,
    name: p.name,
    entityType: p.entity_type === 1 ? 'individual' : p.entity_type === 2 ? 'organization' : 'unknown',
    otherNames: (p.other_names ?? []).filter((n) => n && n !== p.name),
    employers: affs.map((a) => ({ organization: a.orgName, npi: a.orgNpi, address: null, telehealth: false })),
    address: p.address, city: p.city, state: p.state, zip: p.zip5,
    latitude: p.latitude, longitude: p.longitude,
    locationPrecision: p.latitude !== null ? 'zip' : 'none',
    distanceKm: c.distanceKm,
    facilityType: p.entity_type === 2 ? p.taxonomy_description : null,
    specialtyFit: fit.fit, specialtyFitNote: fit.note,
    telehealthOnly: false, telehealthOnlyNote: null,
    taxonomy: p.taxonomy, taxonomyDescription: p.taxonomy_description,
    subpart: !!p.subpart, parentOrganization: p.parent_org_name, mailingState: p.mailing_state,
    deactivated: id.deactivated, identityNote: id.identityNote,
    attributionNote: p.entity_type === 1 && listed
      ? 'Network listings and rates attach to the billing entity’s tax ID: this clinician is listed through the groups shown in billingCandidates.'
      : null,
    identityCaution: id.identityCaution,
    federalSiteNote: FEDERAL.test(`${p.name} ${(p.other_names ?? []).join(' ')}`) ? 'A federal facility (VA, IHS or military): care there is usually not billed to commercial plans, so commercial published rates may not apply.' : null,
    inNetwork, networkStatus, networkEvidence: net.files.length, note, otherPayers,
    matchNote: c.matchNote,
    rate, rateRange: rangeBeside(rate, rs.rateRange), rateSampled: rs.rateSampled, rateNote: rs.rateNote, rangeNote: rs.rangeNote,
    patientShare: share, medicareStatus: status,
    setting: rs.setting, typicalRate: typical.typicalRate, rateAssessment: typical.rateAssessment,
    serviceEvidence, serviceAvailabilityNote,
    billingOrg: bill?.billingOrg ?? null,
    multiEntity: bill?.multiEntity ?? new Set(net.scopedGroups.map((g) => m.batch.groups.get(g)?.tin_value ?? g)).size > 1,
    billingOutlook: bill?.outlook ?? null,
    billingCandidates: (bill?.candidates ?? []).map((c) => ({ ...c, rateRange: rangeBeside(c.rate, c.rateRange) })),
    billingCandidatesOmitted: bill?.omitted ?? 0,
    billingNote: bill?.note ?? null,
    signals: [],
    medicareAnchor: anchor,
  };
}
