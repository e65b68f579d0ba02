/**
 * Plan resolution for network-status (issue 4, item 2; service-spec.md, Pricing: `planHints`,
 * `plan`, `needsMoreInfo`). Order: linked coverage of the caller's patient, then planHints;
 * payerName through the payers registry, then employerName / planName against the plans of the
 * ingested tables of contents to reach the exact plan, else a payer-level range across the
 * payer's plans; groupNumber only for the state plans of the one insurer family that publishes
 * them (IL, TX, OK, NM, MT). `unavailable: true` stops the asks.
 */
import type { PlanHints } from './pricing.schema.ts';
import type { LinkedCoverage, LinkedCoveragePort, NetworkPort, PlanRow } from './network-status.ports.ts';
import { bestPlans, plansByGroupNumber } from './plan-resolution.match.ts';
import type { Ask, PayerInfo, PlanBlock, ResolvedPlan } from './plan-resolution.types.ts';
import { planBasis, planTypeNote, SYNTHETIC_BASIS } from './plan-resolution.words.ts';
import { isOriginalMedicare, ORIGINAL_MEDICARE } from './network-status.words.ts';

export type { Ask, PayerInfo, PlanBlock, ResolvedPlan } from './plan-resolution.types.ts';

export interface PlanDeps {
  network: NetworkPort;
  /** Registry lookup (H6's resolvePayer): accepted names and abbreviations, case/punctuation insensitive. */
  resolvePayer(name: string): Promise<PayerInfo | null>;
  /** Every payer in the registry (for the payerName ask's options). */
  listPayers(): Promise<PayerInfo[]>;
  synthetic: boolean;
  /** The stored coverage of linked insurance (health records); without it, the network port's. */
  linkedCoverage?: LinkedCoveragePort;
}

export interface PlanRequest {
  hints: PlanHints;
  userId: string | null;
  patientId: string | null;
}

/** Merges linked coverage with planHints: linked values first, the user's hints fill the gaps. */
function mergeHints(linked: LinkedCoverage | null, hints: PlanHints): PlanHints {
  if (!linked) return hints;
  return {
    payerName: linked.payerName ?? hints.payerName,
    employerName: linked.employerName ?? hints.employerName,
    planName: linked.planName ?? hints.planName,
    groupNumber: linked.groupNumber ?? hints.groupNumber,
    unavailable: hints.unavailable,
  };
}

function selection(plans: PlanRow[], files: Set<string>): Record<string, unknown> {
  if (plans.length === 1) {
    const p = plans[0]!;
    return {
      planKey: p.plan_key, planName: p.plan_name, sponsor: p.plan_sponsor_name, planIdType: p.plan_id_type,
      planId: p.plan_id, marketType: p.plan_market_type, reportingEntity: p.reporting_entity_name, inNetworkFiles: files.size,
    };
  }
  return {
    plans: plans.length,
    planNames: [...new Set(plans.map((p) => p.plan_name).filter(Boolean))].slice(0, 10),
    sponsors: [...new Set(plans.map((p) => p.plan_sponsor_name).filter(Boolean))].slice(0, 10),
    inNetworkFiles: files.size,
  };
}

/** Resolves the plan the numbers rest on, with the asks that would upgrade the answer. */
export async function resolvePlan(req: PlanRequest, deps: PlanDeps): Promise<ResolvedPlan> {
  const linked = req.userId ? await (deps.linkedCoverage ?? deps.network).linkedCoverage(req.userId, req.patientId) : null;
  const hints = mergeHints(linked, req.hints);
  const stopAsks = hints.unavailable === true;
  const asks: Ask[] = [];
  const received: Record<string, unknown> = { ...req.hints };
  const base = {
    payerSource: linked ? 'linked_coverage' : hints.payerName ? 'planHints' : 'none',
    planHintsReceived: received,
  };
  const none = (coverageNote: string): ResolvedPlan => ({
    payer: null, plans: [], fileKeys: new Set(), filesByPlan: new Map(), exact: false, asks,
    block: {
      payer: null, payerLabel: null, matchTier: 'none', basis: planBasis({ tier: 'none', synthetic: deps.synthetic }),
      sponsor: null, planTypeNote: null, coverageSelection: {}, planVariants: null, coverageNote, ...base,
    },
  });

  if (!hints.payerName) {
    if (!stopAsks) {
      const payers = await deps.listPayers();
      asks.push({
        field: 'payerName', ask: 'Which health insurer is the plan with (the name on the insurance card)?',
        why: 'Network status and contracted rates come from one insurer’s published files; without it the answer cannot say whether this provider is in the user’s network.',
        how: 'Send planHints.payerName (an accepted name or abbreviation, see GET /api/pricing.v1/payers), or planHints.unavailable: true if the user cannot say.',
        options: payers.map((p) => p.label),
      });
    }
    return none(stopAsks ? 'The user cannot provide plan identifiers; rates shown are across every payer’s published files, not the user’s plan.' : 'No insurer given: network status is not resolved for a plan; rates shown are across every payer’s published files.');
  }

  const payer = await deps.resolvePayer(hints.payerName);
  if (!payer) {
    if (!stopAsks) {
      const payers = await deps.listPayers();
      asks.push({
        field: 'payerName', ask: `“${hints.payerName}” is not an insurer we have published files for. Which insurer is on the card?`,
        why: 'Only payers in the registry can be matched to published rate files.',
        how: 'Send planHints.payerName with one of the accepted names (GET /api/pricing.v1/payers lists them).',
        options: payers.map((p) => p.label),
      });
    }
    return none(`“${hints.payerName}” did not match any payer in the registry.`);
  }

  const payerPlans = await deps.network.plansForPayer(payer.key, payer.reportingEntityNames);
  let chosen: PlanRow[] = payerPlans;
  let tier: ResolvedPlan['block']['matchTier'] = 'payer';
  const notes: string[] = [];
  const gnStates = payer.groupNumberStates;

  if (linked?.planKey) {
    const p = payerPlans.filter((x) => x.plan_key === linked.planKey);
    if (p.length) {
      chosen = p;
      tier = 'exact_plan';
    }
  }
  if (tier === 'payer' && hints.groupNumber) {
    if (gnStates.length) {
      const p = plansByGroupNumber(payerPlans, hints.groupNumber);
      if (p.length) {
        chosen = p;
        tier = 'group_number';
      } else notes.push(`Group number ${hints.groupNumber} did not match a published ${payer.label} state plan.`);
    } else {
      notes.push(`Group numbers are matched only for the state plans of one insurer family (IL, TX, OK, NM, MT); ${payer.label}'s plans are matched by employer or plan name.`);
    }
  }
  if (tier === 'payer' && (hints.employerName || hints.planName)) {
    const byEmployer = hints.employerName ? bestPlans(payerPlans, hints.employerName, (p) => p.plan_sponsor_name) : null;
    const byName = hints.planName ? bestPlans(payerPlans, hints.planName, (p) => p.plan_name) : null;
    if (byEmployer?.plans.length && byName?.plans.length) {
      const both = byEmployer.plans.filter((p) => byName.plans.includes(p));
      chosen = both.length ? both : byEmployer.plans;
      tier = both.length ? 'exact_plan' : 'employer';
      if (!both.length) notes.push(`Plan name “${hints.planName}” is not one of ${hints.employerName}'s published plans; using the employer's plans.`);
    } else if (byEmployer?.plans.length) {
      chosen = byEmployer.plans;
      tier = 'employer';
    } else if (byName?.plans.length) {
      chosen = byName.plans;
      tier = 'plan_name';
    }
    if (hints.employerName && !byEmployer?.plans.length) notes.push(`Employer “${hints.employerName}” did not match a plan sponsor in ${payer.label}'s published tables of contents.`);
    if (hints.planName && !byName?.plans.length) notes.push(`Plan name “${hints.planName}” did not match a plan in ${payer.label}'s published tables of contents.`);
  }

  const pf = await deps.network.planFiles(chosen.map((p) => p.plan_key));
  const filesByPlan = new Map<string, Set<string>>();
  for (const r of pf) {
    const s = filesByPlan.get(r.plan_key) ?? new Set<string>();
    s.add(r.file_key);
    filesByPlan.set(r.plan_key, s);
  }
  const fileKeys = new Set(pf.map((r) => r.file_key));
  // At payer level, files the payer publishes without a plan mapping (a 1.x file with no plan
  // fields, a table of contents not ingested) count too: they are the payer's network all the same.
  const unmapped = tier === 'payer' ? (await deps.network.entityFiles(payer.reportingEntityNames)).filter((f) => !fileKeys.has(f)) : [];
  for (const f of unmapped) fileKeys.add(f);
  // Several plans that publish the very same files price identically: that is still one answer.
  const distinctFileSets = new Set([...filesByPlan.values()].map((s) => [...s].sort().join(','))).size;
  const exact = chosen.length > 0 && (chosen.length === 1 || distinctFileSets <= 1) && tier !== 'payer';
  const variants = tier === 'payer' || !exact
    ? { count: Math.max(chosen.length, distinctFileSets), kind: tier === 'payer' ? 'plans published by this payer' : `plans matching the ${tier === 'employer' ? 'employer' : tier === 'plan_name' ? 'plan name' : 'identifier'}` }
    : null;

  const medicareOnly = isOriginalMedicare(payer.key);
  if (medicareOnly) notes.push(ORIGINAL_MEDICARE.coverageNote);
  else if (!payerPlans.length && !fileKeys.size) notes.push(`${payer.label} has no plans or in-network files in the ingested data: network status cannot be checked for it yet.`);
  else if (unmapped.length) notes.push(`${unmapped.length} of ${payer.label}'s in-network file${unmapped.length === 1 ? ' is' : 's are'} not mapped to a plan by an ingested table of contents; ${unmapped.length === 1 ? 'it counts' : 'they count'} at payer level.`);
  else if (!fileKeys.size) notes.push(`The matched plan${chosen.length > 1 ? 's' : ''} list no in-network rate files in this snapshot.`);

  if (!stopAsks && payerPlans.length > 1 && !exact) {
    const exactIds = payer.exactPlanIdentifiers.length ? payer.exactPlanIdentifiers : ['employerName', 'planName'];
    if (exactIds.includes('employerName') && !hints.employerName) {
      asks.push({
        field: 'employerName', ask: 'Which employer provides the plan (or is it bought individually)?',
        why: `${payer.label} publishes ${payerPlans.length} plans with different networks or rates; the employer picks the exact plan, so the range becomes one rate.`,
        how: 'Send planHints.employerName (the employer’s name as the user knows it).',
        options: [...new Set(payerPlans.map((p) => p.plan_sponsor_name).filter((s): s is string => !!s))].slice(0, 20),
      });
    }
    if (exactIds.includes('planName') && !hints.planName) {
      asks.push({
        field: 'planName', ask: 'What is the plan’s name on the insurance card?',
        why: 'The plan name narrows the payer’s plans to the one whose published rates apply.',
        how: 'Send planHints.planName.',
        options: [...new Set(payerPlans.map((p) => p.plan_name).filter((s): s is string => !!s))].slice(0, 20),
      });
    }
    if (gnStates.length && !hints.groupNumber) {
      asks.push({
        field: 'groupNumber', ask: 'What is the group number on the insurance card?',
        why: `For ${payer.label} state plans (${gnStates.join(', ')}) the group number identifies the exact plan.`,
        how: 'Send planHints.groupNumber exactly as printed on the card.',
        options: [],
      });
    }
  }

  const one = chosen.length === 1 ? chosen[0]! : null;
  const sponsors = [...new Set(chosen.map((p) => p.plan_sponsor_name).filter(Boolean))];
  const block: PlanBlock = {
    payer: payer.key,
    payerLabel: payer.label,
    matchTier: tier,
    basis: medicareOnly ? `${ORIGINAL_MEDICARE.basis}${deps.synthetic ? SYNTHETIC_BASIS : ''}` : planBasis({ tier, synthetic: deps.synthetic, payerLabel: payer.label, plans: chosen.length, files: fileKeys.size, exact, planName: one?.plan_name ?? null, sponsor: sponsors.length === 1 ? sponsors[0]! : null, linked: !!linked }),
    sponsor: sponsors.length === 1 ? sponsors[0]! : null,
    planTypeNote: planTypeNote(chosen),
    coverageSelection: selection(chosen, fileKeys),
    planVariants: variants,
    coverageNote: notes.length ? notes.join(' ') : payer.coverage || null,
    ...base,
  };
  return { payer, plans: chosen, fileKeys, filesByPlan, exact, asks, block };
}
