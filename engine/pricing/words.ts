/**
 * The caller-facing texts of the pricing API (issue 4, item 9): methodology, disclaimer,
 * corrections, billingEvidenceDefinitions, signalDefinitions, rateFetchNote, networkNote. Agents
 * relay these as written (service-spec.md, Pricing: "relay every note-style field as written;
 * always relay disclaimer"), so they are specific about where each number comes from and what it
 * does not mean. Plain strings and pure functions: no I/O.
 */

/**
 * "1 file", "3 files": a count with its noun in the right number (issue 37, item 12). Every
 * sentence built around a count goes through this or `plural`, so no "1 of the files" slips in.
 */
export function countOf(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${plural(n, singular, pluralForm)}`;
}

/** The noun alone in the number `n` calls for. */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return n === 1 ? singular : pluralForm;
}

/** Where the numbers come from and what they mean. */
export const METHODOLOGY = [
  'Negotiated rates come from the machine-readable Transparency in Coverage files that health insurers and plan administrators must publish (45 CFR 147.212): each file lists, per plan, the price the plan agreed to pay each provider group (tax ID and NPIs) for each billing code. We read those files as published and do not adjust them.',
  '"In network" means the provider appears with a rate in the files of the plan (or, when the exact plan is unknown, the payer) we matched; the files can be months old and do not capture every contract.',
  'Provider identity, addresses and specialties come from the NPPES NPI Registry; who bills through which organization comes from Medicare enrollment (PECOS) reassignments.',
  'Medicare anchors are computed from the CMS Medicare Physician Fee Schedule (2026 RVU file, GPCIs and ZIP-to-locality file): [(work RVU x work GPCI) + (practice expense RVU x PE GPCI) + (malpractice RVU x MP GPCI)] x the conversion factor, facility or office setting, rounded to the cent as CMS does.',
  'Patient share for Original Medicare uses the Part B deductible and 20% coinsurance; the limiting charge is 115% of the 95% non-participating amount. Commercial files carry no cost sharing, so commercial patient shares are not computed.',
  'Provider evidence uses Medicare\'s public data only: claims volume by provider and service (CMS Physician & Other Practitioners, counts under 11 suppressed), the HHS-OIG List of Excluded Individuals/Entities, the Medicare opt-out list and PECOS enrollment. It describes experience with Medicare patients, not quality, and never ranks providers.',
].join(' ');

/** Not a quote; verify; emergencies. */
export const DISCLAIMER = 'Estimates from published price files and public data: not a quote, a bill or a guarantee of coverage or payment. Plans, networks and prices change; the final amount depends on the services provided, the plan\'s benefits and the claim. Confirm network status and cost with the plan (the number on the insurance card) and the provider before care. Not medical advice. In an emergency call 911 or go to the nearest emergency room: emergency care does not depend on network status.';

/** How to report an error in the evidence (provider-evidence `corrections`); `contact` from contactFor(). */
export function correctionsText(contact: string): string {
  return `Provider evidence is drawn as is from public federal data. Identity and address errors are corrected at the source: providers update their NPPES record at nppes.cms.hhs.gov and their Medicare enrollment in PECOS; exclusions are corrected by HHS-OIG (oig.hhs.gov/exclusions). To report a mistake in how this service presents the data, contact ${contact} with the NPI, the code and what is wrong; we correct our presentation when we are wrong.`;
}

/**
 * The operator contact: an address at the public host's domain, or (on a bare IP or localhost
 * development server, which has no mailbox) a plain pointer to the operator.
 */
export function contactFor(baseUrl: string): string {
  let host = '';
  try { host = new URL(baseUrl).hostname; } catch { host = ''; }
  const isIp = /^[\d.]+$/.test(host) || host.includes(':') || host.startsWith('[');
  if (!host || isIp || host === 'localhost' || !host.includes('.')) return 'the operator of this server (no public contact address is configured)';
  return `support@${host.replace(/^(www|api|pricing)\./, '')}`;
}

/** Definitions of the billing evidence terms network-status uses. */
export const BILLING_EVIDENCE_DEFINITIONS: Readonly<Record<string, string>> = {
  rate: 'The negotiated price for the code in the plan\'s published in-network file for this provider\'s billing entity (tax ID). Only shown when one plan and one entity give one price.',
  rateRange: 'Minimum, maximum and median of the published prices when several plans, entities or settings apply and the exact one is not known.',
  rateSampled: 'True when the range was computed from a sample of the published rows rather than all of them.',
  setting: 'Facility (hospital, surgery center) or non-facility (office) price, as the file states or as inferred from billing class and place of service.',
  typicalRate: 'The median published price for the code among providers in the same area and payer files: context, not a fair-price claim.',
  rateAssessment: 'Where this provider\'s price falls against that local distribution, in words.',
  billingOutlook: 'Who is likely to send the bill: the clinician\'s own entity, a group or hospital they bill through, or several; read before quoting one number.',
  billingCandidates: 'Each billing entity (tax ID) the provider appears under in the files, with its price for the code.',
  multiEntity: 'True when the provider bills through more than one entity, so the price depends on where care happens.',
  networkEvidence: 'How many published files list the provider in the matched plan or payer.',
  medicareAnchor: 'What Original Medicare allows for the code in the provider\'s locality under the Physician Fee Schedule, and the ratio of the rate to it. A reference point, not the patient\'s price.',
  patientShare: 'What the patient would pay: computed for Original Medicare (deductible, 20% coinsurance, limiting charge); for commercial plans only when cost-sharing data exists, which the published files do not include.',
};

/** Definitions of the provider-evidence signal types. */
export const SIGNAL_DEFINITIONS: Readonly<Record<string, string>> = {
  medicare_volume: 'How many times the provider billed the code to Medicare in a year (CMS Physician & Other Practitioners by Provider and Service), with the percentile among providers of the same type in the same state who billed it. Experience with Medicare patients only; not a measure of quality. CMS suppresses rows with fewer than 11 patients, so a missing count is not zero.',
  exclusion: 'The provider\'s NPI is on the HHS-OIG List of Excluded Individuals/Entities (LEIE). Federal health programs do not pay for anything an excluded provider furnishes, orders or prescribes. A legal-status safety notice: always relayed plainly, with its dates.',
  exclusion_check: 'The NPI was checked against the LEIE and not found. Older LEIE entries without an NPI cannot be matched by NPI.',
  facility_outcomes: 'Outcome context about a facility (hospital or surgery center), never about an individual clinician. Shown only for facilities.',
  medicare_optout: 'The provider has opted out of Medicare: Medicare pays nothing for their services and patients pay a private-contract price.',
  no_data: 'No public data of this kind is available for the provider. Absence of data is never negative evidence.',
};

/** Fields of a signal, for `signalDefinitions.fields`. */
export const SIGNAL_FIELDS: Readonly<Record<string, string>> = {
  type: 'Signal type (see the definitions above).',
  display: 'One sentence to relay as written.',
  hcpcs: 'The billing code the signal is about.',
  floor: 'The suppression floor of the source (CMS hides counts under 11).',
  pctl: 'Percentile among peers (same provider type and state); null when there are too few peers.',
  level: 'alert (act on it), info (context) or none (explained absence).',
  facility: 'The facility a facility-level signal is about.',
  measure: 'What was measured (e.g. services billed to Medicare).',
  score: 'The measured value.',
  ci: 'Confidence interval, when the source gives one.',
  verdict: 'A short machine-readable reading (e.g. excluded, not_listed, no_data).',
  denominator: 'How many peers or cases the figure is over.',
};

export function methodology(): string {
  return METHODOLOGY;
}

/** The default network-status `methodology`: one line; the full text on request (issue 37, item 9). */
export const METHODOLOGY_SHORT = 'Sources: insurers\' Transparency in Coverage files, NPPES, CMS fee schedules. include: ["definitions"] adds the full methodology and definitions.';

export function methodologyShort(): string {
  return METHODOLOGY_SHORT;
}

export function disclaimer(): string {
  return DISCLAIMER;
}

export function billingEvidenceDefinitions(): Record<string, unknown> {
  return { ...BILLING_EVIDENCE_DEFINITIONS };
}

export function signalDefinitions(): Record<string, unknown> {
  return { ...SIGNAL_DEFINITIONS, fields: { ...SIGNAL_FIELDS } };
}

/**
 * `networkNote`: what inNetwork means for this answer. `inNetwork: false` is "not found in the
 * published files", never a hard out-of-network verdict (service-spec.md, Pricing); null is
 * unknown: no plan resolved, or the plan's files are not loaded (issue 37, items 6-7).
 */
export function networkNote(a: { matchTier: string; payerLabel: string | null; dataAvailable?: boolean | null }): string {
  const whose = a.payerLabel ? `${a.payerLabel}'s` : 'the insurer\'s';
  const after = 'false: not found there, not a verdict that they are out of network (files lag new contracts; some are published under another entity). Confirm with the plan.';
  if (a.matchTier === 'none' || !a.payerLabel) {
    return 'No plan was identified, so network status against the user\'s plan is unknown: inNetwork is null for every provider, and networkStatus is plan_unknown. otherPayers shows which payers\' files list a provider; that says nothing about the user\'s plan. Name the insurer (planHints.payerName) to check it.';
  }
  if (a.dataAvailable === false) {
    return `${whose} published in-network files for this plan are not loaded in this snapshot, so network status is unknown: inNetwork is null (networkStatus payer_data_not_loaded), which is not "not found". Confirm with the plan, or check GET /api/pricing.v1/payers for the payers whose files are loaded.`;
  }
  const scope = a.matchTier === 'exact_plan'
    ? `the exact plan's files from ${whose} Transparency in Coverage data`
    : `${whose} published files across its plans (the exact plan is not known, so the answer may differ for the person's own plan)`;
  return `inNetwork true: listed with a negotiated rate in ${scope}; ${after}`;
}

/** `rateFetchNote`: how fresh the rates are and where they come from. */
export function rateFetchNote(a: { dataVintage: string; synthetic: boolean; hasCode: boolean }): string {
  const parts = [
    a.hasCode
      ? `Rates as published in insurers' in-network files as of ${a.dataVintage} (not fetched live; they may have changed since).`
      : `Network status is read from insurers' published files as of ${a.dataVintage}; add a catalog code to see rates.`,
  ];
  if (a.synthetic) parts.push('SYNTHETIC DEMO DATA: parts of it describe no real contract.');
  return parts.join(' ');
}
