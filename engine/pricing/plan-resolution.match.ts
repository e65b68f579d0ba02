/**
 * Matching user-supplied plan identifiers (employer, plan name, group number) against the plans
 * of ingested tables of contents (TiC plan_sponsor_name, plan_name, plan_id). Pure functions.
 */
import { nameTokens, normalizeName, tokenSimilarity } from './provider-search.text.ts';
import type { PlanRow } from './network-status.ports.ts';

/** A fuzzy name match counts from here (token coverage both ways, typo-tolerant). */
export const PLAN_MATCH_THRESHOLD = 0.8;

/** Words that say nothing about which employer or plan it is. */
const NOISE = new Set(['plan', 'health', 'benefit', 'benefits', 'employee', 'employees', 'group', 'company', 'synthetic', 'demo']);

function coverage(a: string[], b: string[]): number {
  if (!a.length) return 0;
  let s = 0;
  for (const q of a) {
    let m = 0;
    for (const t of b) m = Math.max(m, tokenSimilarity(q, t));
    s += m;
  }
  return s / a.length;
}

/**
 * Similarity of a user-typed name to a published name in [0, 1]: 1 when equal after
 * normalisation, else the mean of token coverage both ways (so "Pacific Tile" vs "Pacific Tile &
 * Stone Co." scores high but not 1, and "Acme" vs "Acme Robotics Holdings" lower).
 */
export function planNameSimilarity(typed: string, published: string | null): number {
  if (!published) return 0;
  if (normalizeName(typed) === normalizeName(published)) return 1;
  const strip = (s: string): string[] => {
    const t = nameTokens(s);
    const kept = t.filter((x) => !NOISE.has(x));
    return kept.length ? kept : t;
  };
  const a = strip(typed);
  const b = strip(published);
  // The typed side matters more: every word the user gave should be in the published name.
  return 0.7 * coverage(a, b) + 0.3 * coverage(b, a);
}

/** Plans whose field best matches `typed`, at or above the threshold (all ties at the best score). */
export function bestPlans(plans: PlanRow[], typed: string, field: (p: PlanRow) => string | null): { plans: PlanRow[]; score: number } {
  let best = 0;
  let out: PlanRow[] = [];
  for (const p of plans) {
    const s = planNameSimilarity(typed, field(p));
    if (s < PLAN_MATCH_THRESHOLD) continue;
    if (s > best + 1e-9) {
      best = s;
      out = [p];
    } else if (Math.abs(s - best) <= 1e-9) out.push(p);
  }
  return { plans: out, score: best };
}

/** Alphanumerics only, upper-case: "12-3456 a" -> "123456A". */
export function normalizeGroupNumber(s: string): string {
  return s.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/**
 * Plans a group number identifies: equal to the TiC plan_id, or a whole token of the plan name
 * (state plans publish the group number in the plan name, e.g. "… State Employees 123456").
 */
export function plansByGroupNumber(plans: PlanRow[], groupNumber: string): PlanRow[] {
  const g = normalizeGroupNumber(groupNumber);
  if (!g) return [];
  return plans.filter((p) => (p.plan_id && normalizeGroupNumber(p.plan_id) === g)
    || (p.plan_name ?? '').split(/[^A-Za-z0-9-]+/).some((t) => t.length >= 3 && normalizeGroupNumber(t) === g));
}
