/**
 * Prices a care job with our own engine (issue 39, item 1, "Priced by our own engine"): for each
 * provider the job names (the target, and for move_referral the source), the network-status
 * handler (engine/pricing/network-status.ts) answers under the user's plan: linked coverage when
 * records are linked (the handler reads it through its own port), else the agent's planHints.
 * The agent's `estimates` / `savingsCents` are kept as the agent's and flagged where the published
 * rates disagree. Pricing never blocks a job: no snapshot or no match is said on the sheet.
 */
import type { HandlerContext } from '../core/context.ts';
import { isAppError } from '../core/errors.ts';
import { networkStatus } from '../pricing/network-status.ts';
import type { Match, NetworkStatusResponse, PlanHints } from '../pricing/pricing.schema.ts';
import type { PriceCheck, Sheet } from './care-jobs.schema.ts';

/** Who to price: identity and, when known, location (the handler matches names near a ZIP). */
export interface PriceTarget { role: 'target' | 'source'; npi?: string | undefined; providerName?: string | undefined; city?: string | undefined; state?: string | undefined; zip?: string | undefined }

/** A published figure disagrees with the agent's when off by more than 10% and more than $5. */
const TOLERANCE = 0.1;
const TOLERANCE_CENTS = 500;

function pickMatch(matches: Match[], t: PriceTarget): Match | null {
  if (t.npi) return matches.find((m) => String(m.npi) === t.npi) ?? null;
  const city = t.city?.toLowerCase();
  const state = t.state?.toUpperCase();
  return matches.find((m) => m.city?.toLowerCase() === city && m.state === state)
    ?? matches.find((m) => m.state === state) ?? matches[0] ?? null;
}

function unknown(t: PriceTarget, note: string, code: string | null = null): PriceCheck {
  return {
    role: t.role, found: false, providerName: t.providerName ?? null, npi: t.npi ?? null, city: t.city ?? null, state: t.state ?? null,
    inNetwork: null, networkStatus: null, networkNote: null, serviceCode: code, serviceName: null, rate: null, rateRange: null,
    rateNote: null, rangeNote: null, note,
  };
}

async function priceOne(ctx: HandlerContext, t: PriceTarget, code: string | undefined, hints: PlanHints | undefined, patientId: string | undefined)
  : Promise<{ check: PriceCheck; plan: NetworkStatusResponse['plan'] | null }> {
  if (!t.npi && !t.providerName) return { check: unknown(t, 'No provider was named, so nothing could be priced.'), plan: null };
  let res: NetworkStatusResponse;
  try {
    res = await networkStatus({
      ...(t.npi ? { npi: t.npi } : { providerName: t.providerName }), ...(t.zip ? { zip: t.zip } : {}), ...(code ? { code } : {}),
      ...(hints ? { planHints: hints } : {}), ...(patientId ? { patientId } : {}), limit: 10,
    }, ctx);
  } catch (e) {
    if (!isAppError(e) || e.status >= 500 && e.code !== 'pricing_data_unavailable') throw e;
    return { check: unknown(t, `The pricing engine could not answer: ${e.reason}`, code ?? null), plan: null };
  }
  const m = pickMatch(res.matches, t);
  if (!m) return { check: unknown(t, 'This provider was not found in the published pricing data; network status and price are unknown.', code ?? null), plan: res.plan };
  // Matched elsewhere than the city given (names repeat across a state): say so beside the figures.
  const elsewhere = t.city && m.city && m.city.toLowerCase() !== t.city.toLowerCase()
    ? ` The closest match found is in ${m.city}, ${m.state ?? ''}, not ${t.city}: check it is the same office.` : '';
  return {
    plan: res.plan,
    check: {
      role: t.role, found: true, providerName: m.name, npi: String(m.npi), city: m.city, state: m.state,
      inNetwork: m.inNetwork, networkStatus: m.networkStatus, networkNote: m.note, serviceCode: res.service?.code ?? code ?? null,
      serviceName: res.service?.name ?? null, rate: m.rate, rateRange: m.rateRange, rateNote: m.rateNote, rangeNote: m.rangeNote,
      note: `${m.inNetwork === true ? 'Listed in network for this plan in the insurer\'s published files.'
        : m.inNetwork === false ? 'Not found in this plan\'s published network files (not a verdict: call the office to confirm).'
          : 'Network status unknown for this plan.'}${elsewhere}`,
    },
  };
}

/** The published figure for one check, in cents: the rate, else the range's median. */
function publishedCents(c: PriceCheck | undefined): { cents: number; range: { min: number; max: number } | null } | null {
  if (!c?.found) return null;
  if (c.rate !== null) return { cents: Math.round(c.rate * 100), range: null };
  if (c.rateRange) return { cents: Math.round(c.rateRange.median * 100), range: { min: Math.round(c.rateRange.min * 100), max: Math.round(c.rateRange.max * 100) } };
  return null;
}

const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function disagrees(agent: number, published: { cents: number; range: { min: number; max: number } | null }): boolean {
  if (published.range) return agent < published.range.min - TOLERANCE_CENTS || agent > published.range.max + TOLERANCE_CENTS;
  const diff = Math.abs(agent - published.cents);
  return diff > TOLERANCE_CENTS && diff > TOLERANCE * published.cents;
}

/** Flags where the agent's figures and the published rates disagree (empty when they agree or cannot be compared). */
export function agentFlags(estimates: { targetCents?: number | undefined; sourceCents?: number | undefined } | undefined, savingsCents: number | undefined, checks: PriceCheck[]): string[] {
  const flags: string[] = [];
  const target = publishedCents(checks.find((c) => c.role === 'target'));
  const source = publishedCents(checks.find((c) => c.role === 'source'));
  if (estimates?.targetCents !== undefined && target && disagrees(estimates.targetCents, target)) {
    flags.push(`The agent estimated ${usd(estimates.targetCents)} at the new provider; the published rate is ${target.range ? `${usd(target.range.min)}–${usd(target.range.max)}` : usd(target.cents)}.`);
  }
  if (estimates?.sourceCents !== undefined && source && disagrees(estimates.sourceCents, source)) {
    flags.push(`The agent estimated ${usd(estimates.sourceCents)} at the current provider; the published rate is ${source.range ? `${usd(source.range.min)}–${usd(source.range.max)}` : usd(source.cents)}.`);
  }
  if (savingsCents !== undefined && target && source) {
    const published = source.cents - target.cents;
    if (disagrees(savingsCents, { cents: published, range: null }) || Math.sign(savingsCents) !== Math.sign(published) && Math.abs(savingsCents - published) > TOLERANCE_CENTS) {
      flags.push(`The agent claimed savings of ${usd(savingsCents)}; the published rates differ by ${usd(published)}.`);
    }
  }
  return flags;
}

/** Which of the agent's figures have no published rate to be checked against (said on the sheet, not flagged). */
export function uncheckedClaims(estimates: { targetCents?: number | undefined; sourceCents?: number | undefined } | undefined, savingsCents: number | undefined, checks: PriceCheck[]): string[] {
  const target = publishedCents(checks.find((c) => c.role === 'target'));
  const source = publishedCents(checks.find((c) => c.role === 'source'));
  const out: string[] = [];
  if (estimates?.targetCents !== undefined && !target) out.push('the estimate for the new provider');
  if (estimates?.sourceCents !== undefined && !source) out.push('the estimate for the current provider');
  if (savingsCents !== undefined && (!target || !source)) out.push('the claimed savings');
  return out;
}

/** The sheet's pricing block: one check per provider the job names. */
export async function priceJob(ctx: HandlerContext, targets: PriceTarget[], code: string | undefined, hints: PlanHints | undefined, patientId: string | undefined)
  : Promise<Sheet['pricing']> {
  const results = await Promise.all(targets.map((t) => priceOne(ctx, t, code, hints, patientId)));
  const plan = results.find((r) => r.plan)?.plan ?? null;
  const planBasis = plan?.payerSource === 'linked_coverage' ? 'linked_coverage' : plan?.payerSource === 'planHints' ? 'agent_hints' : 'none';
  const label = plan?.payerLabel ?? null;
  return {
    plan: label ? `${label}${plan?.sponsor ? ` (${plan.sponsor})` : ''}` : 'No plan known',
    planBasis,
    checks: results.map((r) => r.check),
    note: planBasis === 'linked_coverage' ? 'Priced under the plan from your linked insurance records.'
      : planBasis === 'agent_hints' ? 'Priced under the plan your agent described (no insurance records are linked).'
        : 'No plan is known, so network status could not be checked for your plan. Prices are what insurers publish; your share depends on your plan.',
  };
}
