/**
 * Billing-outlook terms network-status adds to the shared definitions of words.ts (H6): the
 * fields of billingOutlook and billingCandidates an agent must understand before quoting a price.
 */
export const BILLING_OUTLOOK_DEFINITIONS: Readonly<Record<string, string>> = {
  mode: 'billingOutlook.mode. single: one billing entity publishes the price; partitioned: the provider bills through several entities (tax IDs) with different prices, so ask which one bills and present the range meanwhile; facility_plus_professional: a facility fee and a clinician fee are billed separately for the same service; unknown: no published dollar price to attribute.',
  nMemberships: 'billingCandidates[].nMemberships: how many of the matched plan or payer files list the provider under that billing entity.',
  nominated: 'billingOutlook.nominated: entities other public records point to as the biller (Medicare enrollment reassignments, the NPPES parent organization), with the record named in basis.',
  leading: 'billingOutlook.leading: the entity most likely to bill on the evidence; not a certainty while the mode is partitioned.',
  brandLeadSuppressed: 'Set when the consumer brand the user named is not itself a billing entity in the files, so the brand is not presented as the biller.',
  billingCandidatesOmitted: 'How many further billing entities were found beyond those listed.',
};

/** The payers registry key of Original Medicare (data/payers.json; MEDICARE_PAYER_KEY in the wiring). */
export const ORIGINAL_MEDICARE_KEY = 'medicare';

/** Whether a resolved payer is Original Medicare, which has no network and publishes no TiC files. */
export function isOriginalMedicare(payerKey: string | null | undefined): boolean {
  return payerKey === ORIGINAL_MEDICARE_KEY;
}

/**
 * Words for Original Medicare, which is not a network plan: the Transparency in Coverage rule
 * (45 CFR 147.212) binds group health plans and issuers, not Medicare, so there are no in-network
 * files to find a provider in, and any provider enrolled in Medicare can be seen; one who accepts
 * assignment takes the Medicare-approved amount as full payment (42 CFR 424.55), a
 * non-participating one may charge up to the limiting charge, an opted-out one is not paid by
 * Medicare at all (42 CFR 405.425).
 */
export const ORIGINAL_MEDICARE = {
  /** The match `note` (replaces "not found in the published in-network files"). */
  note(status: { enrolled: boolean | null; assignment: string; optedOut: boolean } | null): string {
    const head = 'Original Medicare has no provider network and publishes no in-network (Transparency in Coverage) files, so inNetwork is false only because there is no file to list the provider in: any provider enrolled in Medicare can be seen, and one who accepts assignment takes the Medicare-approved amount as full payment.';
    if (!status) return `${head} Medicare enrollment and opt-out data are not loaded in this snapshot: ask the provider whether they accept Medicare assignment.`;
    if (status.optedOut) return `${head} This provider has opted out of Medicare: Medicare pays nothing for their services and the patient pays a private-contract price.`;
    if (status.enrolled === null) return `${head} Medicare enrollment data is not loaded in this snapshot, so whether this provider is enrolled is unknown: ask whether they are enrolled and accept assignment.`;
    if (status.enrolled) return `${head} Medicare enrollment records list this provider (assignment: ${status.assignment}); see medicareStatus.`;
    return `${head} This provider is not found in the Medicare enrollment records of this snapshot: ask whether they are enrolled and accept assignment.`;
  },
  /** The top-level `networkNote`. */
  networkNote: 'Original Medicare has no network and publishes no in-network files: inNetwork is false for every provider and is not a verdict. Any Medicare-enrolled provider can be seen; medicareStatus says whether the provider is enrolled, accepts assignment or has opted out, and medicareAnchor gives the Medicare-approved amount.',
  /** The match `rateNote` with a code and no published rate. */
  rateNote(code: string): string {
    return `Original Medicare pays the Physician Fee Schedule amount for ${code} (medicareAnchor), not a negotiated rate, so no published contract rate applies.`;
  },
  /** The match `serviceEvidence` with a code. */
  serviceEvidence(code: string): string {
    return `Original Medicare publishes no rate files; the Medicare-approved amount for ${code} is in medicareAnchor.`;
  },
  /** plan.basis and plan.coverageNote. */
  basis: 'Original Medicare (Part B): Medicare has no provider network and publishes no in-network files: prices come from the CMS Medicare Physician Fee Schedule for the provider’s locality, and the patient’s share from the Part B deductible and 20% coinsurance.',
  coverageNote: 'National. Original Medicare publishes no Transparency in Coverage files; any Medicare-enrolled provider can be seen. Medicare Advantage plans are run by private insurers: name the insurer instead.',
} as const;
