/** Words of the `plan` block (basis, planTypeNote): what the numbers rest on, for agents to relay. */
import type { PlanRow } from './network-status.ports.ts';
import { countOf } from './words.ts';

export interface BasisFacts {
  tier: string;
  synthetic: boolean;
  payerLabel?: string;
  plans?: number;
  /** Every plan of the payer in the snapshot (the chosen ones may be fewer). */
  payerPlans?: number;
  files?: number;
  exact?: boolean;
  planName?: string | null;
  sponsor?: string | null;
  linked?: boolean;
}

/** The sentence every basis of a synthetic snapshot ends with. */
export const SYNTHETIC_BASIS = ' This is synthetic demo data: the payer, plans, providers and rates are fictional; never quote them as real prices.';

/** `plan.basis`: what the numbers rest on; says "synthetic demo data" when the snapshot is synthetic. */
export function planBasis(f: BasisFacts): string {
  const synth = f.synthetic ? SYNTHETIC_BASIS : '';
  if (f.tier === 'none' || !f.payerLabel) {
    return `No plan resolved: network status against the user's plan is unknown (inNetwork is null), and any rate shown is a range across every payer's published in-network files in the snapshot, not the user's price.${synth}`;
  }
  const via = f.linked ? 'the user’s linked insurance' : 'the plan identifiers given';
  if (!f.plans && f.files) return `Payer-level estimate: ${f.payerLabel}'s ${countOf(f.files, 'published in-network file')} (not mapped to named plans by an ingested table of contents); the user's exact plan is not known, so rates are a range and network status means "listed in at least one of them".${synth}`;
  if (!f.files) {
    const whose = f.plans && f.payerPlans ? `the in-network files of the matched ${f.plans === 1 ? 'plan' : 'plans'}` : `${f.payerLabel}'s published in-network files`;
    return `${f.payerLabel} was recognised from ${via}, but ${whose} are not loaded in this snapshot: network status is unknown (inNetwork is null, not "not found") and no rate can be quoted from them.${synth}`;
  }
  if (f.exact) {
    const what = [f.planName ? `“${f.planName}”` : 'the plan', f.sponsor ? `sponsored by ${f.sponsor}` : null].filter(Boolean).join(' ');
    return `Rates and network status from ${f.payerLabel}'s Transparency in Coverage in-network ${f.files === 1 ? 'file' : 'files'} for ${what}, matched from ${via} (${f.tier.replace('_', ' ')}).${synth}`;
  }
  return `Payer-level estimate: ${f.payerLabel} publishes ${countOf(f.plans ?? 0, 'plan')} (${countOf(f.files, 'in-network file')}) and the user's exact plan is not known, so rates are a range across them and network status means "in at least one of them".${synth}`;
}

/** `plan.planTypeNote`: market and plan id type in words (TiC plan_market_type, plan_id_type). */
export function planTypeNote(plans: PlanRow[]): string | null {
  if (!plans.length) return null;
  const markets = [...new Set(plans.map((p) => p.plan_market_type?.toLowerCase()).filter(Boolean))];
  const parts: string[] = [];
  if (markets.length === 1 && markets[0] === 'group') parts.push('an employer group health plan (identified by the employer’s EIN in the files)');
  else if (markets.length === 1 && markets[0] === 'individual') parts.push('an individual-market plan (identified by its HIOS id)');
  else if (markets.length > 1) parts.push('a mix of group and individual-market plans');
  const tpa = plans.some((p) => /third.party|tpa|administrator/i.test(p.reporting_entity_type ?? ''));
  if (tpa) parts.push('files published by a third-party administrator for self-funded plans, whose rates are the administrator’s network rates');
  return parts.length ? `${parts.join('; ')}.`.replace(/^./, (c) => c.toUpperCase()) : null;
}
