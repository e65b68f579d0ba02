/**
 * network-status's own words (methodology, definitions, networkNote, rateFetchNote, disclaimer),
 * used while the shared words module (words.ts, H6) is not available; the wiring prefers it.
 * Every sentence is for an agent to relay as written (service-spec.md, Pricing: rules for consumers).
 */

export const NETWORK_METHODOLOGY = [
  'Network status and contracted rates come from the insurers’ own Transparency in Coverage machine-readable files (45 CFR 147.212): the table of contents maps each plan to its in-network rate files; each file lists provider groups (a tax ID and its NPIs) and the negotiated rate for each billing code.',
  'A provider is in network for a plan when one of the plan’s in-network files lists a provider group containing the provider’s NPI (or a group billing under its own NPI or its parent organization’s tax ID).',
  'With an exact plan, the rate is the negotiated rate in that plan’s files; without one, rates are a range across the payer’s plans. Percentage-of-charges arrangements are not dollars and are reported in words only.',
  'Providers are matched by NPI, or by name over registry names, other names (DBA) and consumer brands, tolerant of typos, and ranked by name match then distance from the ZIP or point given (ZIP centroids).',
  'The typical rate is the median of the same code’s rates in the same payer’s files for providers in the same state. Medicare anchors use the CMS Physician Fee Schedule for the provider’s ZIP locality.',
].join(' ');

export const NETWORK_DISCLAIMER = 'Information only, from public price-transparency files and public registries; not a quote, a guarantee of coverage or payment, or medical advice. Networks and rates change, and what a patient owes depends on their plan’s deductible, copays and coinsurance. Confirm network status and costs with the insurer and the provider before receiving care.';

export const BILLING_EVIDENCE_DEFINITIONS: Record<string, string> = {
  mode: 'single: one billing entity, one rate; partitioned: the provider bills through several entities (tax IDs) with different rates, so ask which one bills; facility_plus_professional: a facility fee and a clinician fee are billed separately; unknown: no published rate to attribute.',
  billingCandidates: 'One entry per billing tax ID (TIN) whose provider group lists this NPI in the plan’s files, with that entity’s rate or range.',
  nMemberships: 'How many of the plan’s published files list this NPI under that billing entity.',
  nominated: 'Entities that other public records (Medicare enrollment reassignments, NPPES parent organization) point to as the likely biller.',
  brandLeadSuppressed: 'Set when the consumer brand the user named is not itself a billing entity in the files, so it is not presented as the biller.',
  multiEntity: 'True when the NPI appears under more than one billing tax ID.',
  networkEvidence: 'How many of the plan’s published in-network files list the provider.',
};

export const SIGNAL_DEFINITIONS: Record<string, string> = {
  signals: 'network-status carries no evidence signals; call provider-evidence with one NPI for Medicare volume, exclusion-list status and facility-level context.',
};

export function networkNoteFor(a: { matchTier: string; payerLabel: string | null }): string {
  const base = 'inNetwork: true means the provider is listed in the insurer’s own published in-network files; inNetwork: false means not found in those files, never a hard out-of-network verdict (files lag contract changes and list groups by tax ID). Confirm with the insurer before care.';
  if (a.matchTier === 'none' || !a.payerLabel) return `${base} No plan was resolved, so inNetwork is false for every match; otherPayers lists the payers whose files do list each provider.`;
  if (a.matchTier === 'payer') return `${base} The user’s exact ${a.payerLabel} plan is not known: inNetwork means listed for at least one of its plans.`;
  return base;
}

export function rateFetchNoteFor(a: { dataVintage: string; synthetic: boolean; hasCode: boolean }): string {
  const synth = a.synthetic ? ' The data includes a synthetic demo network: its names and rates are fictional.' : '';
  return `Rates are read from the published files as of the data snapshot (${a.dataVintage}); insurers republish monthly, so a rate may have changed since.${a.hasCode ? '' : ' Send code to get contracted rates for a service.'}${synth}`;
}
