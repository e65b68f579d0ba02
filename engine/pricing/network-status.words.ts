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
