/**
 * Contracted-rate summaries for network-status (issue 4, item 4: `rate`, `rateRange`,
 * `rateSampled`, `rateNote`, `rangeNote`, `setting`, `typicalRate`, `rateAssessment`).
 * Pure functions over rate rows already restricted to the resolved plan's files.
 *
 * TiC semantics (CMS in-network-rates README): `percentage` rates are a percent of billed charges,
 * not dollars, so they never enter a dollar range; `per diem` is dollars per day.
 */
import type { CodeRef, RateDistribution, RateRow } from './network-status.ports.ts';
import { countOf } from './words.ts';

/** Rows beyond this many are sampled for the median (deterministically: every k-th). */
export const RATE_SAMPLE_CAP = 5000;

export interface RateSummary {
  /** The one contracted rate when every dollar row agrees; else null. */
  rate: number | null;
  rateRange: { min: number; max: number; median: number } | null;
  rateSampled: boolean;
  rateNote: string | null;
  rangeNote: string | null;
  setting: string | null;
  /** Dollar rows counted. */
  n: number;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** The code as the rates table stores it (CPT/HCPCS upper-cased; MS-DRG three digits). */
export function codeRef(code: string, codeType: string | null): CodeRef {
  const c = code.trim().toUpperCase();
  if (codeType === 'MS-DRG' || /^\d{3}$/.test(c)) return { types: ['MS-DRG'], code: c.padStart(3, '0') };
  // Payers label CPT codes HCPCS and the reverse (HCPCS Level I is CPT): look under both.
  return { types: ['CPT', 'HCPCS'], code: c };
}

export function median(sorted: number[]): number {
  const n = sorted.length;
  if (!n) return NaN;
  const mid = Math.floor(n / 2);
  return n % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** POS codes that Medicare prices at the facility rate (hospital, ASC, SNF…; 42 CFR 414.22(b)(5)(i)). */
const FACILITY_POS = new Set(['19', '21', '22', '23', '24', '26', '31', '34', '41', '42', '51', '52', '53', '56', '61']);

/** One row's setting: facility or non-facility, from billing_class, TiC setting and place-of-service codes. */
export function rowSetting(r: RateRow): 'facility' | 'non-facility' | 'unspecified' {
  if (r.billing_class === 'institutional') return 'facility';
  if (r.setting === 'inpatient') return 'facility';
  const pos = r.service_code ?? [];
  if (pos.length && pos.every((p) => FACILITY_POS.has(p.padStart(2, '0')))) return 'facility';
  if (pos.length && pos.some((p) => !FACILITY_POS.has(p.padStart(2, '0')))) return 'non-facility';
  return r.billing_class === 'professional' ? 'non-facility' : 'unspecified';
}

/** Summarises rate rows (already scoped to the plan's files and one billing entity or match). */
export function summarizeRates(rows: RateRow[], ctx: { exactPlan: boolean; scopeWords: string }): RateSummary {
  const dollars = rows.filter((r) => r.negotiated_type !== 'percentage' && Number.isFinite(r.negotiated_rate));
  const pct = rows.filter((r) => r.negotiated_type === 'percentage');
  const settings = [...new Set(dollars.map(rowSetting))];
  const setting = settings.length === 1 ? settings[0]! : settings.length ? 'mixed' : null;
  if (!dollars.length) {
    return {
      rate: null, rateRange: null, rateSampled: false, setting,
      rateNote: pct.length
        ? `The published files give this code only as a percentage of billed charges (${[...new Set(pct.map((r) => `${r.negotiated_rate}%`))].join(', ')}), not a dollar amount.`
        : null,
      rangeNote: null, n: 0,
    };
  }
  let values = dollars.map((r) => r.negotiated_rate).sort((a, b) => a - b);
  const all = values.length;
  const sampled = all > RATE_SAMPLE_CAP;
  if (sampled) {
    const k = Math.ceil(all / RATE_SAMPLE_CAP);
    values = values.filter((_, i) => i % k === 0);
  }
  const distinct = new Set(dollars.map((r) => r.negotiated_rate)).size;
  const range = { min: round2(dollars.reduce((m, r) => Math.min(m, r.negotiated_rate), Infinity)), max: round2(dollars.reduce((m, r) => Math.max(m, r.negotiated_rate), -Infinity)), median: round2(median(values)) };
  const types = [...new Set(dollars.map((r) => r.negotiated_type))];
  const perDiem = types.includes('per diem') ? ' Per-diem rates are dollars per day of stay.' : '';
  const expired = dollars.some((r) => r.expiration_date && r.expiration_date < new Date().toISOString().slice(0, 10));
  const exp = expired ? ' Some published rates carry an expiration date that has passed; the payer may have renewed them unchanged.' : '';
  const rate = distinct === 1 && ctx.exactPlan ? round2(dollars[0]!.negotiated_rate) : null;
  const rateNote = rate !== null
    ? `Contracted ${types.join('/')} rate from ${ctx.scopeWords}.${perDiem}${exp}${pct.length ? ' The files also list a percentage-of-charges arrangement for this code.' : ''}`
    : distinct === 1
      ? `Every published rate for this provider in ${ctx.scopeWords} is ${range.min}, but the user's exact plan is not known.${perDiem}${exp}`
      : `The published files hold ${distinct} different rates for this provider and code in ${ctx.scopeWords}; see rateRange.${perDiem}${exp}`;
  const rangeNote = distinct > 1
    ? `Range across ${all} published rate rows (plan variants, billing entities, settings and modifiers) in ${ctx.scopeWords}${sampled ? `; median from a sample of ${values.length}` : ''}.`
    : null;
  return { rate, rateRange: range, rateSampled: sampled, rateNote, rangeNote, setting, n: all };
}

/**
 * The Medicare fee schedule component the dollar rows price (RVU26B layout: a code's global row,
 * its modifier 26 professional-component row and its TC technical-component row): '26', 'TC' or
 * '' (global, also for rows whose modifiers are none of those); null when the rows mix components,
 * so no single Medicare amount is comparable. With no dollar rows: ''.
 */
export function pfsComponent(rows: readonly RateRow[]): '26' | 'TC' | '' | null {
  const kinds = new Set<'26' | 'TC' | ''>();
  for (const r of rows) {
    if (r.negotiated_type === 'percentage' || !Number.isFinite(r.negotiated_rate)) continue;
    const mods = (r.billing_code_modifier ?? []).map((m) => m.trim().toUpperCase());
    kinds.add(mods.includes('26') ? '26' : mods.includes('TC') ? 'TC' : '');
  }
  if (kinds.size > 1) return null;
  return [...kinds][0] ?? '';
}

/** Percentile words for a rate against the local distribution (issue 4: `rateAssessment`). */
export function assessRate(rate: number | null, dist: RateDistribution | null): { typicalRate: number | null; rateAssessment: string | null } {
  if (!dist || dist.n === 0 || dist.p50 === null) return { typicalRate: null, rateAssessment: null };
  const typicalRate = round2(dist.p50);
  if (rate === null) return { typicalRate, rateAssessment: null };
  if (dist.n < 5) return { typicalRate, rateAssessment: `Only ${countOf(dist.n, 'comparable published rate')} (${dist.scope}): too few to say whether this rate is high or low.` };
  const of = `of ${dist.n} published rates for this code (${dist.scope})`;
  const p25 = dist.p25 ?? dist.p50;
  const p75 = dist.p75 ?? dist.p50;
  if (Math.abs(rate - dist.p50) <= 0.05 * dist.p50) return { typicalRate, rateAssessment: `Near the local median ${of}.` };
  if (rate < p25) return { typicalRate, rateAssessment: `Below the local 25th percentile ${of}.` };
  if (rate > p75) return { typicalRate, rateAssessment: `Above the local 75th percentile ${of}.` };
  return { typicalRate, rateAssessment: `Within the local middle half, ${rate < dist.p50 ? 'below' : 'above'} the median, ${of}.` };
}
