/**
 * Who is likely to bill, and what that means for the price (issue 4, item 4: `billingOutlook`,
 * `billingCandidates[]`, `multiEntity`, `billingCandidatesOmitted`, `billingNote`).
 *
 * A clinician's NPI can appear in provider groups under several TINs (a medical group, a hospital,
 * a staffing company): each TIN has its own contract, so the price depends on which entity sends
 * the bill. A facility (institutional rates) adds a facility fee to the clinician's professional
 * fee. Modes: single | partitioned | facility_plus_professional | unknown.
 */
import type { z } from 'zod';
import type { BillingCandidateSchema, BillingOutlookSchema } from './pricing.schema.ts';
import type { Affiliation, GroupRow, RateDistribution, RateRow } from './network-status.ports.ts';
import { assessRate, summarizeRates } from './rates.ts';
import { planNameSimilarity } from './plan-resolution.match.ts';

export type BillingOutlook = z.infer<typeof BillingOutlookSchema>;
export type BillingCandidate = z.infer<typeof BillingCandidateSchema>;

/** At most this many candidates are listed; the rest are counted in billingCandidatesOmitted. */
export const MAX_CANDIDATES = 10;

export interface BillingInput {
  /** Rate rows for the code in the plan's files, for the groups listing this NPI (or its TIN). */
  rows: RateRow[];
  groups: Map<string, GroupRow>;
  /** group_key -> number of in-scope files referencing it (the membership evidence). */
  groupFiles: Map<string, string[]>;
  /** Every group listing the NPI in scope (with or without a rate for the code). */
  memberGroups: string[];
  /** Names for NPI-type TINs (a clinician billing under their own NPI). */
  tinNames: Map<string, string>;
  affiliations: Affiliation[];
  parentOrganization: string | null;
  brand: string | null;
  exactPlan: boolean;
  scopeWords: string;
  /** false when no plan was resolved: the words then say "the published files", not "the plan's files". */
  planKnown?: boolean;
  dist: RateDistribution | null;
}

export interface BillingResult {
  outlook: BillingOutlook | null;
  candidates: BillingCandidate[];
  omitted: number;
  note: string | null;
  multiEntity: boolean;
  billingOrg: string | null;
  /** The rate the response may quote as one price (null while partitioned or warned). */
  rate: number | null;
}

function tinKey(g: GroupRow | undefined, groupKey: string): string {
  return g?.tin_value ? `${g.tin_type ?? 'ein'}:${g.tin_value}` : `group:${groupKey}`;
}

function orgLabel(g: GroupRow | undefined, names: Map<string, string>): string {
  if (g?.business_name) return g.business_name;
  if (g?.tin_type === 'npi' && g.tin_value) return names.get(g.tin_value) ?? `NPI ${g.tin_value} (billing under its own NPI)`;
  return g?.tin_value ? `Entity with TIN ${g.tin_value}` : 'Unnamed provider group';
}

/** Builds the billing outlook and candidates for one match. */
export function billingOutlook(input: BillingInput): BillingResult {
  // "the plan's files" only when a plan (or payer) was resolved; otherwise every payer's files were read.
  const theFiles = (what: string): string => (input.planKnown === false ? `the published ${what.replace(/^published /, '')}` : `the plan’s ${what}`);
  const cap = (x: string): string => x.charAt(0).toUpperCase() + x.slice(1);
  const byTin = new Map<string, { label: string; tin: string | null; rows: RateRow[]; groups: Set<string> }>();
  const add = (gk: string): { label: string; tin: string | null; rows: RateRow[]; groups: Set<string> } => {
    const g = input.groups.get(gk);
    const k = tinKey(g, gk);
    let e = byTin.get(k);
    if (!e) {
      e = { label: orgLabel(g, input.tinNames), tin: g?.tin_value ?? null, rows: [], groups: new Set() };
      byTin.set(k, e);
    }
    e.groups.add(gk);
    return e;
  };
  for (const gk of input.memberGroups) add(gk);
  for (const r of input.rows) add(r.group_key).rows.push(r);
  const multiEntity = byTin.size > 1;

  const nominated: { entity: string; basis: string }[] = [];
  for (const e of byTin.values()) {
    const aff = input.affiliations.find((a) => (a.orgNpi !== null && String(a.orgNpi) === e.tin) || planNameSimilarity(a.orgName, e.label) >= 0.9);
    if (aff) nominated.push({ entity: e.label, basis: 'Medicare enrollment records (PECOS) show this clinician reassigns benefits to it.' });
    if (input.parentOrganization && planNameSimilarity(input.parentOrganization, e.label) >= 0.9) {
      nominated.push({ entity: e.label, basis: 'NPPES lists it as the parent organization of this NPI.' });
    }
  }

  const candidates: BillingCandidate[] = [...byTin.values()]
    .map((e) => {
      const s = summarizeRates(e.rows, { exactPlan: input.exactPlan, scopeWords: input.scopeWords });
      const files = new Set([...e.groups].flatMap((g) => input.groupFiles.get(g) ?? []));
      const a = assessRate(s.rate ?? s.rateRange?.median ?? null, input.dist);
      return {
        billingOrg: e.label,
        tin: e.tin,
        rate: s.rate,
        rateRange: s.rateRange,
        rateNote: s.rateNote ?? (e.rows.length ? 'Published rates for this entity.' : `This entity lists the provider in ${theFiles('files')} but publishes no rate for this code.`),
        setting: s.setting,
        nMemberships: files.size,
        typicalRate: a.typicalRate,
        rateAssessment: a.rateAssessment,
        evidence: [...e.groups].slice(0, 5).map((g) => ({ groupKey: g, tinType: input.groups.get(g)?.tin_type ?? null, files: input.groupFiles.get(g)?.length ?? 0, networkNames: input.groups.get(g)?.network_names ?? [] })),
      };
    })
    .sort((a, b) => Number(b.rate !== null || b.rateRange !== null) - Number(a.rate !== null || a.rateRange !== null) || b.nMemberships - a.nMemberships || a.billingOrg.localeCompare(b.billingOrg));

  const priced = candidates.filter((c) => c.rateRange !== null);
  const inst = [...byTin.values()].filter((e) => e.rows.some((r) => r.billing_class === 'institutional'));
  const prof = [...byTin.values()].filter((e) => e.rows.some((r) => r.billing_class !== 'institutional'));
  const shown = candidates.slice(0, MAX_CANDIDATES);
  const omitted = candidates.length - shown.length;
  const brandLeadSuppressed = input.brand && !candidates.some((c) => planNameSimilarity(input.brand!, c.billingOrg) >= 0.85)
    ? { entity: input.brand, reason: 'The brand name the user knows is not the entity that bills: the published files list the billing entities below, so the brand is not presented as the biller.' }
    : null;

  const base = { nominated, brandLeadSuppressed, partnership: null as string | null, leading: null as string | null, ask: null as string | null, warning: null as string | null, caution: null as string | null };
  if (!priced.length) {
    return {
      outlook: { ...base, mode: 'unknown', rate: null, basis: candidates.length ? `${cap(theFiles('files'))} list this provider but publish no dollar rate for this code under any of its billing entities.` : `No billing entity for this provider appears in ${theFiles('published files')}.`, caution: multiEntity ? `The provider appears under ${byTin.size} billing entities.` : null },
      candidates: shown, omitted, multiEntity, billingOrg: byTin.size === 1 ? candidates[0]!.billingOrg : null, rate: null,
      note: multiEntity ? `This provider is listed under ${byTin.size} billing entities (TINs); none publishes a dollar rate for this code in ${theFiles('files')}.` : null,
    };
  }

  if (inst.length && prof.length) {
    const facility = summarizeRates(inst.flatMap((e) => e.rows.filter((r) => r.billing_class === 'institutional')), { exactPlan: input.exactPlan, scopeWords: input.scopeWords });
    const professional = summarizeRates(prof.flatMap((e) => e.rows.filter((r) => r.billing_class !== 'institutional')), { exactPlan: input.exactPlan, scopeWords: input.scopeWords });
    const total = facility.rate !== null && professional.rate !== null ? Math.round((facility.rate + professional.rate) * 100) / 100 : null;
    return {
      outlook: {
        ...base, mode: 'facility_plus_professional', rate: total,
        leading: inst[0]!.label,
        basis: `${cap(theFiles('files'))} hold an institutional (facility) rate and a professional rate for this code: a facility fee and the clinician’s fee are billed separately.`,
        caution: 'Expect two bills: the facility fee and the professional fee. The total is their sum; quote both parts.',
      },
      candidates: shown, omitted, multiEntity, billingOrg: inst[0]!.label, rate: total,
      note: `Facility fee from ${inst.map((e) => e.label).join(', ')}; professional fee from ${prof.map((e) => e.label).join(', ')}.`,
    };
  }

  const singleRates = new Set(priced.map((c) => c.rate));
  if (priced.length > 1 && !(singleRates.size === 1 && !singleRates.has(null))) {
    const lo = Math.min(...priced.map((c) => c.rateRange!.min));
    const hi = Math.max(...priced.map((c) => c.rateRange!.max));
    const nom = nominated.filter((n) => priced.some((c) => c.billingOrg === n.entity));
    const leading = nom.length === 1 ? nom[0]!.entity : priced[0]!.nMemberships > (priced[1]?.nMemberships ?? 0) ? priced[0]!.billingOrg : null;
    return {
      outlook: {
        ...base, mode: 'partitioned', rate: null, leading,
        ask: 'Which practice or organization will send the bill for this visit? Ask the clinic which medical group or tax ID bills for this clinician; the contracted rate depends on it.',
        warning: `This provider bills through ${priced.length} entities with different contracted rates for this code (${lo} to ${hi}); do not quote one price until the billing entity is known.`,
        partnership: `${priced.map((c) => c.billingOrg).join(' and ')} each list this provider in ${theFiles('files')}.`,
        basis: `Several billing TINs list this NPI in ${theFiles('published provider groups')}, each with its own rate.`,
        caution: leading ? `${leading} is the more likely biller on the evidence, but that is not certain.` : null,
      },
      candidates: shown, omitted, multiEntity: true, billingOrg: null, rate: null,
      note: `Rates differ by billing entity; present the range ${lo} to ${hi} and ask which entity bills.`,
    };
  }

  const lead = priced[0]!;
  return {
    outlook: {
      ...base, mode: 'single', rate: lead.rate, leading: lead.billingOrg,
      basis: priced.length > 1 ? `${priced.length} billing entities list this provider and publish the same rate.` : `One billing entity (${lead.billingOrg}) lists this provider with a rate for this code in ${theFiles('files')}.`,
    },
    candidates: shown, omitted, multiEntity, billingOrg: lead.billingOrg, rate: lead.rate,
    note: multiEntity ? `Listed under ${byTin.size} billing entities; only ${priced.length} publish${priced.length === 1 ? 'es' : ''} a rate for this code.` : null,
  };
}
