/** Billing outlook modes and rate summaries over hand-made rate rows (no I/O). */
import { describe, expect, test } from 'vitest';
import { billingOutlook, type BillingInput } from '../../engine/pricing/billing-outlook.ts';
import { assessRate, codeRef, rowSetting, summarizeRates } from '../../engine/pricing/rates.ts';
import type { GroupRow, RateRow } from '../../engine/pricing/network-status.ports.ts';

const row = (group_key: string, negotiated_rate: number, o: Partial<RateRow> = {}): RateRow => ({
  billing_code_type: 'CPT', billing_code: '99213', negotiated_type: 'negotiated', negotiated_rate, negotiation_arrangement: 'ffs',
  billing_class: 'professional', setting: null, service_code: ['11'], billing_code_modifier: null, expiration_date: null, group_key, file_keys: ['f1'], ...o,
});
const groups = new Map<string, GroupRow>([
  ['g1', { group_key: 'g1', tin_type: 'ein', tin_value: '111', business_name: 'Bay Medical Group', network_names: [] }],
  ['g2', { group_key: 'g2', tin_type: 'ein', tin_value: '222', business_name: 'Harbor Physicians', network_names: [] }],
  ['g3', { group_key: 'g3', tin_type: 'ein', tin_value: '333', business_name: 'Mercy Hospital', network_names: [] }],
]);
const input = (rows: RateRow[], extra: Partial<BillingInput> = {}): BillingInput => ({
  rows, groups, groupFiles: new Map([['g1', ['f1']], ['g2', ['f1']], ['g3', ['f1']]]), memberGroups: [...new Set(rows.map((r) => r.group_key))],
  tinNames: new Map(), affiliations: [], parentOrganization: null, brand: null, exactPlan: true, scopeWords: 'the plan’s files', dist: null, ...extra,
});

describe('billing outlook', () => {
  test('one entity, one rate: single', () => {
    const b = billingOutlook(input([row('g1', 120)]));
    expect(b.outlook).toMatchObject({ mode: 'single', rate: 120, warning: null, leading: 'Bay Medical Group' });
    expect(b).toMatchObject({ rate: 120, multiEntity: false, billingOrg: 'Bay Medical Group' });
  });

  test('two entities with different rates: partitioned, no single rate, an ask and a warning', () => {
    const b = billingOutlook(input([row('g1', 120), row('g2', 150)]));
    expect(b.outlook).toMatchObject({ mode: 'partitioned', rate: null });
    expect(b.outlook!.ask).toBeTruthy();
    expect(b.outlook!.warning).toMatch(/120 to 150/);
    expect(b.rate).toBeNull();
    expect(b.candidates.map((c) => c.rate)).toEqual([120, 150]);
  });

  test('a PECOS reassignment nominates the leading entity', () => {
    const b = billingOutlook(input([row('g1', 120), row('g2', 150)], { affiliations: [{ npi: 1, orgNpi: null, orgName: 'Harbor Physicians' }] }));
    expect(b.outlook!.nominated).toEqual([{ entity: 'Harbor Physicians', basis: expect.stringMatching(/PECOS/) }]);
    expect(b.outlook!.leading).toBe('Harbor Physicians');
  });

  test('two entities with the same rate: single, multiEntity', () => {
    const b = billingOutlook(input([row('g1', 120), row('g2', 120)]));
    expect(b.outlook!.mode).toBe('single');
    expect(b.multiEntity).toBe(true);
  });

  test('institutional plus professional: facility_plus_professional with the sum', () => {
    const b = billingOutlook(input([row('g3', 900, { billing_class: 'institutional' }), row('g1', 120)]));
    expect(b.outlook).toMatchObject({ mode: 'facility_plus_professional', rate: 1020, leading: 'Mercy Hospital' });
  });

  test('a brand that is not a billing entity is suppressed as the lead; no rate: unknown', () => {
    expect(billingOutlook(input([row('g1', 120)], { brand: 'One Medical' })).outlook!.brandLeadSuppressed).toMatchObject({ entity: 'One Medical' });
    expect(billingOutlook(input([], { memberGroups: ['g1'] })).outlook!.mode).toBe('unknown');
  });
});

describe('rates', () => {
  test('percentage rows are not dollars; ranges and medians', () => {
    const s = summarizeRates([row('g1', 100), row('g1', 200), row('g1', 65, { negotiated_type: 'percentage' })], { exactPlan: true, scopeWords: 'x' });
    expect(s).toMatchObject({ rate: null, rateRange: { min: 100, max: 200, median: 150 }, n: 2 });
    expect(summarizeRates([row('g1', 65, { negotiated_type: 'percentage' })], { exactPlan: true, scopeWords: 'x' }).rateNote).toMatch(/65%/);
    expect(summarizeRates([row('g1', 100)], { exactPlan: false, scopeWords: 'x' }).rate).toBeNull();
  });

  test('settings from billing class and place of service', () => {
    expect(rowSetting(row('g', 1))).toBe('non-facility');
    expect(rowSetting(row('g', 1, { service_code: ['22'] }))).toBe('facility');
    expect(rowSetting(row('g', 1, { billing_class: 'institutional' }))).toBe('facility');
  });

  test('code references: CPT under CPT and HCPCS; DRGs padded', () => {
    expect(codeRef('99213', 'CPT')).toEqual({ types: ['CPT', 'HCPCS'], code: '99213' });
    expect(codeRef('470', 'MS-DRG')).toEqual({ types: ['MS-DRG'], code: '470' });
  });

  test('assessment words against the local distribution', () => {
    const d = { n: 20, p25: 100, p50: 120, p75: 140, scope: 'same payer, CA' };
    expect(assessRate(121, d).rateAssessment).toMatch(/^Near the local median/);
    expect(assessRate(90, d).rateAssessment).toMatch(/^Below the local 25th/);
    expect(assessRate(150, d).rateAssessment).toMatch(/^Above the local 75th/);
    expect(assessRate(105, d).rateAssessment).toMatch(/below the median/);
    expect(assessRate(100, { ...d, n: 3 }).rateAssessment).toMatch(/too few/);
    expect(assessRate(100, null)).toEqual({ typicalRate: null, rateAssessment: null });
  });
});
