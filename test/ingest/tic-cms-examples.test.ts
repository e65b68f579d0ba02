/**
 * Every CMS example file (price-transparency-guide; v2 = schema 2.x examples, v1 = 1.6.2 examples)
 * produces exactly the records written out by hand below, from reading each JSON file. Both
 * parsers are run; the expectations are not snapshots of parser output.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { GroupRecord, PlanRecord, PriceRecord, RateRecord } from '../../ingest/tic/records.ts';
import { parseOk, ticPath } from '../fixtures/tic/recorder.ts';

const P = (negotiatedType: string, negotiatedRate: number, billingClass: string, setting: string | null,
  serviceCode: string[] | null = null, mods: string[] | null = null, info: string | null = null, exp = '2022-01-01'): PriceRecord =>
  ({ negotiatedType, negotiatedRate, expirationDate: exp, serviceCode, billingClass, setting, billingCodeModifier: mods, additionalInformation: info });
const G = (tinType: string, tinValue: string, npis: number[], businessName: string | null = null): GroupRecord =>
  ({ tinType, tinValue, businessName, npis, networkNames: [] });
const R = (billingCodeType: string, billingCode: string, billingCodeTypeVersion: string, name: string, negotiationArrangement: string,
  refIds: string[], inlineGroups: GroupRecord[], prices: PriceRecord[]): RateRecord =>
  ({ billingCodeType, billingCode, billingCodeTypeVersion, name, negotiationArrangement, refIds, inlineGroups, prices });
const plan = (planName: string | null, planIdType: string | null, planId: string | null, planMarketType: string | null,
  planSponsorName: string | null = null, issuerName: string | null = null): PlanRecord =>
  ({ planName, planIdType, planId, planMarketType, planSponsorName, issuerName });

const FIVE = [1111111111, 2222222222, 3333333333, 4444444444, 5555555555];
const FOUR = [6666666666, 7777777777, 8888888888, 9999999999];
const UNDER_REPAIR = 'Under Repair, Revision, and/or Reconstruction Procedures on the Femur (Thigh Region) and Knee Joint';
const KNEE = 'Knee Replacement';
const FEMUR = 'Femur and Knee Joint Repair';
// The provider_references block shared by the v2 bundle, capitation, fee-for-service and multi-plan examples.
const V2_REFS = [
  { refId: '1', location: null, networkNames: ['ACME Choice Provider Group'],
    groups: [G('ein', '11-1111111', FIVE, 'ACME Provider Group'), G('ein', '22-2222222', FIVE, 'Midland Medical Group')] },
  { refId: '2', location: null, networkNames: ['ACME Choice Provider Group Plus'], groups: [G('ein', '22-2222222', FIVE, 'Midland Medical Group')] },
];
const AA_PROVIDERS: [number, number[]][] = [[50, [1234567891, 1234567892, 1234567893]], [60, [1111111111]], [70, [2222222222, 3333333333, 4444444444, 5555555555]]];
const aa = (setting: string | null, mods: string[] | null) => AA_PROVIDERS.map(([billed, npis]) => ({
  billingCodeType: 'CPT', billingCode: '99214', name: 'Established Patient Office or Other Outpatient Services',
  tinType: 'ein', tinValue: '1234567890', serviceCode: ['01', '02', '03'], billingClass: 'professional', setting,
  allowedAmount: 25, billingCodeModifier: mods, npis, billedCharge: billed,
}));
const bundle = (arr: string, kind: 'bundled_codes' | 'covered_services', pType: string, pCode: string) => ['27447', '27446'].map((code) => ({
  negotiationArrangement: arr, parentBillingCodeType: pType, parentBillingCode: pCode, kind,
  billingCodeType: 'CPT', billingCode: code, billingCodeTypeVersion: '2020', description: UNDER_REPAIR,
}));
const TOC_FILES = (issuer: string | null) => [
  { plans: [plan('medicaid', 'HIOS', '1111111111', 'individual', null, issuer), plan('medicare', 'HIOS', '000000000', 'individual', null, issuer)],
    inNetworkFiles: [
      { description: 'in-network file', location: 'https://www.some_site.com/files/in-network-file-123456.json' },
      { description: 'behavioral in-network shared file', location: 'https://www.some_site.com/files/behavioral-health-0000.json' }],
    allowedAmountFile: { description: 'allowed amount file', location: 'https://www.some_site.com/files/allowed-amount-file-987665.json' } },
  { plans: [plan('chip', 'HIOS', '3333333333', 'group', null, issuer)],
    inNetworkFiles: [{ description: 'in-network file', location: 'https://www.some_site.com/files/chip-in-network-file.json' }],
    allowedAmountFile: { description: 'allowed amount file', location: 'https://www.some_site.com/files/chip-allowed-amount-file.json' } },
];

interface Expect {
  kind: string; version: string; plans?: PlanRecord[]; refs?: unknown[]; rates?: RateRecord[]; bundles?: unknown[];
  allowed?: unknown[]; toc?: unknown[]; warnings?: Record<string, number>; entity?: string;
}

const CASES: Record<string, Expect> = {
  'cms-examples-v2/allowed-amounts-multiple-plan-sample.json': { kind: 'allowed-amounts', version: '2.0.0', allowed: aa('outpatient', null) },
  'cms-examples-v2/allowed-amounts-single-plan-sample.json': {
    kind: 'allowed-amounts', version: '2.0.0', allowed: aa('outpatient', ['25']), plans: [plan('medicare', 'HIOS', '1111111111', 'individual')] },
  'cms-examples-v2/in-network-rates-all-negotiated-types-sample.json': {
    kind: 'in-network', version: '2.0.0', entity: 'Comprehensive Health Insurance',
    plans: [plan('Plan D PPO', 'EIN', '4444444444', 'group', 'Comprehensive Employee Group', 'Comprehensive Health Issuer')],
    refs: [
      { refId: '1', location: null, networkNames: ['Comprehensive Health Network'], groups: [
        G('ein', '12-3456789', [1234567890, 2345678901, 3456789012], 'Premier Medical Associates'), G('ein', '23-4567890', [4567890123], 'Regional Healthcare Group')] },
      { refId: '2', location: null, networkNames: ['Comprehensive Health Plus Network'], groups: [G('ein', '34-5678901', [5678901234, 6789012345], 'City General Hospital')] },
    ],
    rates: [
      R('CPT', '99214', '2024', 'Office Visit, Established Patient, Moderate Complexity', 'ffs', ['1'], [],
        [P('negotiated', 150, 'professional', 'outpatient', ['11'], null, 'Standard negotiated rate for established patient office visits', '2024-12-31')]),
      R('CPT', '97110', '2024', 'Outpatient Physical Therapy', 'ffs', ['1'], [],
        [P('percentage', 65, 'professional', 'outpatient', ['11', '22'], null, '65% of billed charges arrangement', '2024-12-31')]),
      R('RC', '0200', '2024', 'Medical/Surgical Intensive Care Unit (ICU) Daily Rate', 'ffs', ['2'], [],
        [P('per diem', 5500, 'institutional', 'inpatient', null, null, 'Daily per diem rate for ICU stay', '2024-12-31')]),
      R('CPT', '80053', '2024', 'Laboratory Test - Comprehensive Metabolic Panel', 'ffs', ['1'], [],
        [P('derived', 45, 'professional', 'outpatient', ['11', '81'], null, 'Derived price for internal accounting and reconciliation purposes', '2024-12-31')]),
      R('CPT', '27447', '2024', 'Knee Replacement Surgery', 'ffs', ['1', '2'], [], [
        P('fee schedule', 8500, 'professional', 'inpatient', ['21', '22'], null, 'Fee schedule rate used to determine participant cost-sharing liability', '2024-12-31'),
        P('negotiated', 12000, 'institutional', 'inpatient', null, null, null, '2024-12-31')]),
      R('CPT', '99285', '2024', 'Emergency Department Visit, High Severity', 'ffs', ['2'], [], [
        P('percentage', 75.5, 'professional', 'outpatient', ['23'], null, null, '2024-12-31'),
        P('negotiated', 2500, 'institutional', 'outpatient', null, null, null, '2024-12-31')]),
    ],
  },
  'cms-examples-v2/in-network-rates-bundle-single-plan-sample.json': {
    kind: 'in-network', version: '2.0.0', plans: [plan('medicare', 'HIOS', '0000000000', 'individual', null, 'ACME Issuer')], refs: V2_REFS,
    rates: [
      R('ICD', '81.54', '9', 'Total Knee Replacement', 'bundle', ['1'], [], [P('negotiated', 20000, 'professional', 'inpatient', ['05', '06', '07'])]),
      R('ICD', '81.54', '9', 'Total Knee Replacement', 'bundle', ['1'], [], [P('negotiated', 25000, 'professional', 'inpatient', ['05', '06', '07'])]),
    ],
    bundles: bundle('bundle', 'bundled_codes', 'ICD', '81.54'),
  },
  'cms-examples-v2/in-network-rates-capitation-single-plan-sample.json': {
    kind: 'in-network', version: '2.0.0', plans: [plan('medicaid', 'HIOS', '1111111111', 'individual', null, 'CMS Medicaid Issuer')], refs: V2_REFS,
    rates: [
      R('CPT', '27447', '2020', 'Primary Care Capitation', 'capitation', ['1'], [], [P('negotiated', 20000, 'institutional', 'inpatient')]),
      R('CPT', '27447', '2020', 'Primary Care Capitation', 'capitation', ['1'], [], [P('negotiated', 25000, 'professional', 'inpatient', ['05', '06', '07'])]),
    ],
    bundles: bundle('capitation', 'covered_services', 'CPT', '27447'),
  },
  'cms-examples-v2/in-network-rates-fee-for-service-single-plan-sample.json': {
    kind: 'in-network', version: '2.0.0', entity: 'medicare', refs: V2_REFS,
    plans: [plan('Plan A PPO', 'EIN', '1111111111', 'group', 'ACME small auto shop', 'ACME Issuer')],
    rates: [
      R('CPT', '27447', '2020', KNEE, 'ffs', ['1'], [], [
        P('negotiated', 123.45, 'professional', 'inpatient', ['18', '19', '11'], ['AS']), P('negotiated', 1230.45, 'institutional', 'inpatient')]),
      R('CPT', '27447', '2020', KNEE, 'ffs', ['1'], [], [P('negotiated', 120.45, 'professional', 'inpatient', ['05', '06', '07'])]),
      R('CPT', '27448', '2020', FEMUR, 'ffs', ['1'], [], [P('negotiated', 12003.45, 'professional', 'inpatient', ['CSTM-00'])]),
      R('CPT', '27448', '2020', FEMUR, 'ffs', ['1'], [], [P('negotiated', 12.45, 'institutional', 'inpatient', ['18', '19', '11'])]),
    ],
  },
  'cms-examples-v2/in-network-rates-multiple-plans-sample.json': {
    kind: 'in-network', version: '2.0.0', plans: [], refs: V2_REFS,
    rates: [
      R('CPT', '27447', '2020', KNEE, 'ffs', ['1'], [], [
        P('negotiated', 123.45, 'professional', 'inpatient', ['18', '19', '11'], ['AS']), P('negotiated', 1230.45, 'institutional', 'inpatient')]),
      R('CPT', '27447', '2020', KNEE, 'ffs', ['1'], [], [
        P('negotiated', 120.45, 'professional', 'inpatient', ['05', '06', '07']), P('derived', 120.45, 'both', 'inpatient')]),
      R('CPT', '27448', '2020', FEMUR, 'ffs', ['1'], [], [P('negotiated', 12003.45, 'professional', 'inpatient', ['18', '19', '11'])]),
      R('CPT', '27448', '2020', FEMUR, 'ffs', ['1'], [], [P('negotiated', 12.45, 'institutional', 'inpatient', ['18', '19', '11'])]),
    ],
  },
  'cms-examples-v2/in-network-rates-no-npi.json': {
    kind: 'in-network', version: '2.0.0', plans: [plan('medicaid', 'EIN', '1111111111', 'individual', 'plan sponsor', 'ACME Issuer')],
    refs: [{ refId: '1', location: null, networkNames: ['ACME Choice Provider Group'], groups: [G('npi', '1234567890', [1111111111])] }],
    rates: [R('CPT', '27447', '2020', KNEE, 'ffs', ['1'], [], [P('negotiated', 123.45, 'institutional', 'inpatient')])],
  },
  'cms-examples-v2/table-of-contents-sample.json': { kind: 'table-of-contents', version: '2.0.0', toc: TOC_FILES('CMS'), plans: [] },

  'cms-examples-v1/allowed-amounts/allowed-amounts-multiple-plan-empty-sample.json': { kind: 'allowed-amounts', version: '1.0.0', allowed: [], plans: [] },
  'cms-examples-v1/allowed-amounts/allowed-amounts-multiple-plan-sample.json': { kind: 'allowed-amounts', version: '1.0.0', allowed: aa(null, null) },
  'cms-examples-v1/allowed-amounts/allowed-amounts-single-plan-empty-sample.json': {
    kind: 'allowed-amounts', version: '1.0.0', allowed: [], plans: [plan('medicare', 'HIOS', '1111111111', 'individual')] },
  'cms-examples-v1/allowed-amounts/allowed-amounts-single-plan-sample.json': {
    kind: 'allowed-amounts', version: '1.0.0', allowed: aa(null, ['25']), plans: [plan('medicare', 'HIOS', '1111111111', 'individual')] },
  'cms-examples-v1/allowed-amounts/multiplan-empty-example.json': { kind: 'allowed-amounts', version: '1.0.0', allowed: [] },
  'cms-examples-v1/in-network-rates/in-network-rates-bundle-single-plan-sample.json': {
    kind: 'in-network', version: '1.0.0', plans: [plan('medicare', 'HIOS', '0000000000', 'individual')], refs: [],
    rates: [
      R('ICD', '81.54', '9', 'Total Knee Replacement', 'bundle', [], [G('ein', '11-1111111', FIVE), G('ein', '22-2222222', FIVE)],
        [P('negotiated', 20000, 'professional', null, ['05', '06', '07'])]),
      R('ICD', '81.54', '9', 'Total Knee Replacement', 'bundle', [], [G('npi', '6666666666', FOUR)], [P('negotiated', 25000, 'professional', null, ['05', '06', '07'])]),
    ],
    bundles: bundle('bundle', 'bundled_codes', 'ICD', '81.54'),
  },
  'cms-examples-v1/in-network-rates/in-network-rates-capitation-single-plan-sample.json': {
    kind: 'in-network', version: '1.0.0', plans: [plan('medicaid', 'HIOS', '1111111111', 'individual')],
    rates: [
      R('CPT', '27447', '2020', 'Primary Care Capitation', 'capitation', [], [G('ein', '11-1111111', FIVE), G('ein', '22-2222222', FIVE)],
        [P('negotiated', 20000, 'institutional', null)]),
      R('CPT', '27447', '2020', 'Primary Care Capitation', 'capitation', [], [G('ein', '22-2222222', FOUR)],
        [P('negotiated', 25000, 'professional', null, ['05', '06', '07'])]),
    ],
    bundles: bundle('capitation', 'covered_services', 'CPT', '27447'),
  },
  'cms-examples-v1/in-network-rates/in-network-rates-fee-for-service-single-plan-sample.json': {
    kind: 'in-network', version: '1.2.0', plans: [plan('medicaid', 'HIOS', '1111111111', 'individual')],
    refs: [
      { refId: '1', location: null, networkNames: [], groups: [G('ein', '11-1111111', FIVE), G('ein', '22-2222222', FIVE)] },
      { refId: '2', location: 'https://www.cms.gov/some_provider_group.json', networkNames: [], groups: [] },
    ],
    rates: [
      R('CPT', '27447', '2020', KNEE, 'ffs', [], [G('ein', '11-1111111', FIVE), G('ein', '22-2222222', FIVE)], [
        P('negotiated', 123.45, 'professional', null, ['18', '19', '11'], ['AS']), P('negotiated', 1230.45, 'institutional', null)]),
      R('CPT', '27447', '2020', KNEE, 'ffs', [], [G('ein', '22-2222222', FOUR)], [P('negotiated', 120.45, 'professional', null, ['05', '06', '07'])]),
      R('CPT', '27448', '2020', FEMUR, 'ffs', ['1'], [], [P('negotiated', 12003.45, 'professional', null, ['CSTM-00'])]),
      R('CPT', '27448', '2020', FEMUR, 'ffs', [], [G('npi', '6666666666', [6666666666])], [P('negotiated', 12.45, 'institutional', null, ['18', '19', '11'])]),
    ],
    warnings: { remote_reference: 1 },
  },
  'cms-examples-v1/in-network-rates/in-network-rates-multiple-plans-sample.json': {
    kind: 'in-network', version: '1.0.0', plans: [],
    rates: [
      R('CPT', '27447', '2020', KNEE, 'ffs', [], [G('ein', '11-1111111', FIVE), G('ein', '22-2222222', FIVE)], [
        P('negotiated', 123.45, 'professional', null, ['18', '19', '11'], ['AS']), P('negotiated', 1230.45, 'institutional', null)]),
      R('CPT', '27447', '2020', KNEE, 'ffs', [], [G('ein', '22-2222222', FOUR)], [
        P('negotiated', 120.45, 'professional', null, ['05', '06', '07']), P('derived', 120.45, 'both', null)]),
      R('CPT', '27448', '2020', FEMUR, 'ffs', [], [G('ein', '11-1111111', FIVE), G('ein', '22-2222222', FIVE)], [
        P('negotiated', 12003.45, 'professional', null, ['18', '19', '11'])]),
      R('CPT', '27448', '2020', FEMUR, 'ffs', [], [G('npi', '6666666666', [6666666666])], [P('negotiated', 12.45, 'institutional', null, ['18', '19', '11'])]),
    ],
  },
  'cms-examples-v1/in-network-rates/in-network-rates-no-npi.json': {
    kind: 'in-network', version: '1.0.0', plans: [plan('medicaid', 'HIOS', '1111111111', 'individual')],
    rates: [R('CPT', '27447', '2020', KNEE, 'ffs', [], [G('ein', '11-1111111', [])], [P('negotiated', 123.45, 'institutional', null)])],
    warnings: { tin_only_group: 1 },
  },
  'cms-examples-v1/provider-reference/provider-reference.json': {
    kind: 'provider-reference', version: '1.4.0',
    refs: [{ refId: '', location: null, networkNames: [], groups: [G('ein', '22-2222222', [1111111111]), G('ein', '22-2222222', [2222222222])] }],
  },
  'cms-examples-v1/table-of-contents/table-of-contents-sample.json': {
    kind: 'table-of-contents', version: '1.4.0', toc: TOC_FILES(null), warnings: { missing_field: 1 } },
};

describe.each(['fast', 'reference'] as const)('CMS examples (%s parser)', (parser) => {
  it.each(Object.keys(CASES))('%s', async (file) => {
    const want = CASES[file]!;
    const got = await parseOk(readFileSync(ticPath(file)), { parser }, 97);
    expect(got.headers).toHaveLength(1);
    expect(got.headers[0]!.kind).toBe(want.kind);
    expect(got.headers[0]!.version).toBe(want.version);
    if (want.entity) expect(got.headers[0]!.reportingEntityName).toBe(want.entity);
    expect(got.plans).toEqual(want.plans ?? []);
    expect(got.refs).toEqual(want.refs ?? []);
    expect(got.rates).toEqual(want.rates ?? []);
    expect(got.bundles).toEqual(want.bundles ?? []);
    expect(got.allowed).toEqual(want.allowed ?? []);
    expect(got.toc).toEqual(want.toc ?? []);
    const counts: Record<string, number> = {};
    for (const w of got.warnings) counts[w.kind] = (counts[w.kind] ?? 0) + 1;
    expect(counts).toEqual(want.warnings ?? {});
    expect(got.stats.rates).toBe((want.rates ?? []).length);
  });
});
