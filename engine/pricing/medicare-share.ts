/**
 * What the patient pays, and the `medicare` block (issue 4, items 5 and 6).
 *
 * Original Medicare Part B (42 CFR 410.152, 410.160; SSA 1848(g)):
 * - after the deductible is met, the patient pays the coinsurance: 20% of the allowed amount;
 * - before it is met we assume the whole annual deductible is still owed ($283 in 2026), so
 *   beforeDeductibleMet = allowed when allowed <= deductible, else deductible + 20% x (allowed - deductible);
 * - a provider who does not accept assignment (non-participating) is allowed 95% of the fee
 *   schedule and may charge at most the limiting charge, 115% of that = 1.0925 x the fee schedule;
 *   the patient pays the charge minus Medicare's 80% of the non-participating amount;
 * - an opted-out provider is paid nothing by Medicare: the patient pays the private-contract price.
 * Commercial plans: the insurers' Transparency-in-Coverage files carry no deductible, copay or
 * coinsurance, so the numbers are null and the note says so.
 * Money is computed in integer cents and rounded half-up.
 */
import type { MedicareParamsRecord } from './medicare-tables.ts';

export type Participation = 'participating' | 'non_participating' | 'unknown';
export type CoverageKind = 'original_medicare' | 'medicare_advantage' | 'commercial' | 'unknown';

export interface PatientShare {
  afterDeductible: number | null;
  beforeDeductibleMet: number | null;
  limitingChargeMax: number | null;
  note: string;
}

export interface PatientShareInput {
  coverage: CoverageKind;
  /** The Medicare allowed amount (fee schedule) for Original Medicare; the negotiated rate otherwise. */
  allowed: number | null;
  params: MedicareParamsRecord | undefined;
  participation?: Participation;
  optedOut?: boolean;
}

const money = (cents: number): number => Math.round(cents) / 100;
/** cents x pct / 100, half-up, in integers. */
const pctOf = (cents: number, pct: number): number => Math.floor((cents * Math.round(pct * 100) + 5000) / 10000);

/** Numbers for a participating provider (assignment accepted): 20% after the deductible. */
function participatingCents(allowedCents: number, dedCents: number, coinsPct: number): { after: number; before: number } {
  const after = pctOf(allowedCents, coinsPct);
  const before = allowedCents <= dedCents ? allowedCents : dedCents + pctOf(allowedCents - dedCents, coinsPct);
  return { after, before };
}

/** The patient's share of one service. Never throws; explains every null. */
export function patientShare(input: PatientShareInput): PatientShare {
  if (input.coverage === 'commercial' || input.coverage === 'unknown') {
    return {
      afterDeductible: null, beforeDeductibleMet: null, limitingChargeMax: null,
      note: "Rate files give what the plan pays, not the member's deductible, copay or coinsurance, so the patient's share is not computed: up to the full rate before the deductible is met, then the plan's copay or coinsurance (see its Summary of Benefits and Coverage).",
    };
  }
  if (input.coverage === 'medicare_advantage') {
    return {
      afterDeductible: null, beforeDeductibleMet: null, limitingChargeMax: null,
      note: 'Medicare Advantage plans set their own copays and coinsurance; the Original Medicare figures do not apply. Check the plan\'s Evidence of Coverage.',
    };
  }
  const p = input.params;
  if (input.optedOut) {
    return {
      afterDeductible: null, beforeDeductibleMet: null, limitingChargeMax: null,
      note: 'This provider has opted out of Medicare: Medicare pays nothing for their services (except emergencies) and the patient pays the price set in the private contract the provider must ask them to sign first; no limiting charge applies and Medigap does not pay.',
    };
  }
  if (input.allowed === null || !p) {
    return {
      afterDeductible: null, beforeDeductibleMet: null, limitingChargeMax: null,
      note: p ? 'Medicare publishes no fee schedule amount for this service here, so the patient\'s share cannot be computed.' : 'Medicare Part B parameters are not loaded, so the patient\'s share cannot be computed.',
    };
  }
  const fee = Math.round(input.allowed * 100);
  const ded = Math.round(p.part_b_deductible * 100);
  const coins = p.coinsurance_pct;
  // Limiting charge: 115% of the 95% non-participating amount (= 1.0925 x fee schedule, RVU26B cover note).
  const nonpar = pctOf(fee, p.nonpar_pct);
  // One rounding of fee x 95% x 115% (= x 1.0925, as CMS computes it), not of the rounded 95% amount.
  const limiting = Math.floor((fee * Math.round(p.nonpar_pct * 100) * Math.round(p.limiting_charge_pct * 100) + 50_000_000) / 100_000_000);
  const terms = `Original Medicare ${p.year}: Part B deductible $${p.part_b_deductible}, then ${coins}% coinsurance of the Medicare-approved amount`;
  const participation = input.participation ?? 'unknown';
  if (participation === 'non_participating') {
    // Medicare pays 80% of the non-participating amount above the deductible; the patient pays the rest of the charge, at most the limiting charge.
    const medicareAfter = nonpar - pctOf(nonpar, coins);
    const medicareBefore = nonpar <= ded ? 0 : (nonpar - ded) - pctOf(nonpar - ded, coins);
    return {
      afterDeductible: money(limiting - medicareAfter),
      beforeDeductibleMet: money(limiting - medicareBefore),
      limitingChargeMax: money(limiting),
      note: `${terms}. This provider does not accept assignment: Medicare approves ${p.nonpar_pct}% of the fee schedule and the provider may charge up to the limiting charge (${p.limiting_charge_pct}% of that, $${money(limiting).toFixed(2)}); the figures are the most the patient can owe, assuming the full charge. Medigap plans may cover part of it.`,
    };
  }
  const { after, before } = participatingCents(fee, ded, coins);
  if (participation === 'participating') {
    return {
      afterDeductible: money(after),
      beforeDeductibleMet: money(before),
      limitingChargeMax: null,
      note: `${terms}. beforeDeductibleMet assumes none of the $${p.part_b_deductible} deductible has been met this year. The provider accepts assignment, so they cannot bill above the Medicare-approved amount. Medigap or other secondary coverage may pay some or all of this.`,
    };
  }
  return {
    afterDeductible: money(after),
    beforeDeductibleMet: money(before),
    limitingChargeMax: money(limiting),
    note: `${terms}. beforeDeductibleMet assumes none of the $${p.part_b_deductible} deductible has been met this year. These figures assume the provider accepts assignment; we cannot confirm that from public data. A provider who does not accept assignment may charge up to the limiting charge, $${money(limiting).toFixed(2)} (${p.limiting_charge_pct}% of the ${p.nonpar_pct}% non-participating amount), and the patient would owe more. Medigap or other secondary coverage may pay some or all of this.`,
  };
}

export interface MedicareBlock {
  coverage: string;
  assumed: boolean;
  year: number;
  partBDeductible: number;
  coinsurancePct: number;
  limitingChargePct: number;
  medigap: boolean;
  note: string;
}

/**
 * The spec's `medicare` block. `assumed` is true when nothing told us the person is on Original
 * Medicare (the response then also carries a `medicare_type` ask: see medicareTypeAsk).
 */
export function medicareBlock(params: MedicareParamsRecord, opts: { assumed: boolean; medigap?: boolean }): MedicareBlock {
  const note = [
    `Figures assume Original Medicare Part B ${params.year}: a $${params.part_b_deductible} annual deductible, then ${params.coinsurance_pct}% coinsurance of the Medicare-approved amount.`,
    `Providers who do not accept assignment may charge up to ${params.limiting_charge_pct}% of their ${params.nonpar_pct}% non-participating amount (the limiting charge).`,
    opts.assumed ? 'We do not know that this person has Original Medicare rather than a Medicare Advantage plan; Medicare Advantage plans set their own cost sharing.' : '',
    opts.medigap ? 'A Medigap policy may pay the deductible and coinsurance.' : 'We do not know of any Medigap or secondary coverage, which may pay part of the patient\'s share.',
    `Source: ${params.source}.`,
  ].filter(Boolean).join(' ');
  return {
    coverage: 'original_medicare',
    assumed: opts.assumed,
    year: params.year,
    partBDeductible: params.part_b_deductible,
    coinsurancePct: params.coinsurance_pct,
    limitingChargePct: params.limiting_charge_pct,
    medigap: opts.medigap ?? false,
    note,
  };
}

/** The `medicare_type` needsMoreInfo ask, for answers that assume Original Medicare. */
export function medicareTypeAsk(): { field: string; ask: string; why: string; how: string; options: string[] } {
  return {
    field: 'medicare_type',
    ask: 'Is the person on Original Medicare (the red, white and blue card) or a Medicare Advantage plan from a private insurer?',
    why: 'The patient-share figures assume Original Medicare; Medicare Advantage plans have their own networks and cost sharing.',
    how: 'If it is a Medicare Advantage plan, call again with planHints.payerName set to the insurer on the card (for example "Humana" or "UnitedHealthcare").',
    options: ['Original Medicare', 'Medicare Advantage'],
  };
}
