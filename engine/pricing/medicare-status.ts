/**
 * `medicareStatus` of a provider (spec: `enrolled`, `assignment`, `optedOut`, `basis`):
 * - enrolled: the NPI has a Medicare fee-for-service enrollment in PECOS (public provider
 *   enrollment extract); null when that extract is not loaded: unknown, never false (issue 37,
 *   item 8);
 * - optedOut: an opt-out affidavit whose period covers today (effective <= today <= end);
 * - assignment: whether the provider accepts assignment. PECOS enrollment does NOT say whether a
 *   provider participates; we have no participation file, so it is "unknown" unless opted out
 *   ("opted_out": Medicare pays nothing). The basis says so in words.
 */
import type { EnrollmentRow, EvidenceStore, OptOutRow } from './evidence.ports.ts';

export interface MedicareStatus {
  enrolled: boolean | null;
  assignment: string;
  optedOut: boolean;
  basis: string;
}

export interface MedicareStatusData {
  enrollment: EnrollmentRow[];
  optOut: OptOutRow[];
  /** Whether the snapshot has the tables at all. */
  pecosLoaded: boolean;
  optOutLoaded: boolean;
}

/** Computes the status from the rows of one NPI; `asOf` is YYYY-MM-DD. */
export function medicareStatusFrom(data: MedicareStatusData, asOf: string): MedicareStatus {
  const active = data.optOut.find((o) => (!o.optout_effective_date || o.optout_effective_date <= asOf) && (!o.optout_end_date || o.optout_end_date >= asOf));
  const past = data.optOut.find((o) => o.optout_end_date && o.optout_end_date < asOf);
  const future = data.optOut.find((o) => o.optout_effective_date && o.optout_effective_date > asOf);
  const enrolled = data.pecosLoaded ? data.enrollment.length > 0 : null;
  const basis: string[] = [];
  if (!data.pecosLoaded && !data.optOutLoaded) {
    // Nothing to go on: one sentence, not three (answers stay small; issue 37, item 9).
    return { enrolled, assignment: 'unknown', optedOut: false, basis: 'Medicare enrollment (PECOS) and opt-out data are not loaded in this snapshot: enrollment, opt-out and assignment are unknown.' };
  }
  if (!data.pecosLoaded) basis.push('Medicare enrollment (PECOS) data is not loaded in this snapshot, so whether the provider is enrolled is unknown.');
  else basis.push(enrolled ? `Enrolled in Medicare fee-for-service per the PECOS public enrollment file${data.enrollment[0]?.provider_type_desc ? ` (${data.enrollment[0].provider_type_desc})` : ''}.` : 'No Medicare fee-for-service enrollment for this NPI in the PECOS public enrollment file.');
  if (!data.optOutLoaded) basis.push('The Medicare opt-out list is not loaded.');
  else if (active) basis.push(`On the Medicare opt-out list since ${active.optout_effective_date ?? 'an unknown date'}${active.optout_end_date ? ` through ${active.optout_end_date}` : ''}: Medicare pays nothing and the patient pays the private-contract price.`);
  else if (future) basis.push(`An opt-out takes effect on ${future.optout_effective_date}.`);
  else if (past) basis.push(`A past opt-out ended on ${past.optout_end_date}.`);
  else basis.push('Not on the Medicare opt-out list.');
  if (!active) basis.push('Whether the provider accepts assignment (participates) is not published in the files we use: PECOS enrollment alone does not say, so assignment is unknown.');
  return { enrolled, assignment: active ? 'opted_out' : 'unknown', optedOut: !!active, basis: basis.join(' ') };
}

/** Statuses for several NPIs with two queries (network-status calls this once per answer). */
export async function medicareStatuses(store: EvidenceStore, npis: readonly number[], asOf: string): Promise<Map<number, MedicareStatus>> {
  const out = new Map<number, MedicareStatus>();
  if (!npis.length) return out;
  const pecosLoaded = store.hasRows('pecos_enrollment');
  const optOutLoaded = store.hasRows('medicare_optout');
  const [enr, opt] = await Promise.all([
    pecosLoaded ? store.enrollments(npis) : Promise.resolve([]),
    optOutLoaded ? store.optOuts(npis) : Promise.resolve([]),
  ]);
  for (const npi of npis) {
    out.set(npi, medicareStatusFrom({
      enrollment: enr.filter((e) => e.npi === npi),
      optOut: opt.filter((o) => o.npi === npi),
      pecosLoaded, optOutLoaded,
    }, asOf));
  }
  return out;
}

/** One NPI's status. */
export async function medicareStatus(store: EvidenceStore, npi: number, asOf: string): Promise<MedicareStatus> {
  return (await medicareStatuses(store, [npi], asOf)).get(npi)!;
}
