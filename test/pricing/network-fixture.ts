/**
 * A small, hand-made pricing snapshot for the network-status tests: two payers, four plans, a
 * handful of providers and groups, and rates whose answers are checked by hand in the tests.
 *
 *   Acme Health (key acme): "Acme PPO 1500" sponsored by Pacific Tile & Stone Co. (file F_PPO),
 *                           "Acme Select HMO" sponsored by Redwood Robotics Inc. (file F_HMO)
 *   BCBS Texas  (key bcbstx, group numbers in IL TX OK NM MT): "ERS HealthSelect 123456" (F_TX),
 *                           "Employer Blue PPO" (F_TX2)
 *   Dr Alice Smith 1000000001: Bayview Medical Group (G1: PPO 120, HMO 100 for 99213) and Harbor
 *                           Physicians (G2: PPO 150): a multi-TIN clinician in the PPO.
 *   Sunset Imaging Center 1000000020 (DBA "Sunset MRI"): G3, 70551 PPO 600, HMO 450.
 *   Oak Street Clinic x2 (94110 San Francisco 1000000050, 90012 Los Angeles 1000000051).
 *   1Life Healthcare Inc 1000000070, brand "One Medical" (brand-alias file).
 *   Old Town Clinic 1000000040: deactivated 2024-05-01.
 *   Five filler clinicians 1000000101-105 (G5-G9, PPO 99213 at 90, 100, 110, 130, 140) for the local distribution.
 *   Oak Street Clinic SF (G10) shares Bayview's HMO 99213 price of 100: one rates row whose
 *                           provider-group set is {G1, G10} (the multi-group set case).
 *
 * fixtureTables() writes rates one row per (price, group) with a group_key, the readable form;
 * openFixture() stores them in the contract's set layout (test/helpers/rate-sets.ts withGroupSets),
 * so tests extending `rates` keep writing per-group rows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildTestSnapshot, type Row } from '../helpers/snapshot-builder.ts';
import { codePrefix } from '../../schemas/pricing-tables.ts';
import { withGroupSets } from '../helpers/rate-sets.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { createNetworkPort } from '../../engine/pricing/adapters/network.duckdb.ts';
import { createProviderPort } from '../../engine/pricing/adapters/providers.duckdb.ts';
import type { HandlerContext } from '../../engine/core/context.ts';
import type { PricingPorts } from '../../engine/pricing/ports.ts';

const prov = (npi: number, o: Partial<Row>): Row => ({
  npi, entity_type: 2, state: 'CA', other_names: [], subpart: false, latitude: null, longitude: null, ...o,
});
const Z = { '94110': [37.7486, -122.4158], '90012': [34.0614, -118.2385], '94301': [37.4443, -122.1508], '94103': [37.7725, -122.4091] } as const;
const at = (zip: keyof typeof Z): Row => ({ zip5: zip, latitude: Z[zip][0], longitude: Z[zip][1] });

export const NPI = {
  alice: 1000000001, bayview: 1000000010, sunset: 1000000020, txdoc: 1000000030, oldtown: 1000000040,
  oakSf: 1000000050, oakLa: 1000000051, oneMedical: 1000000070, stanford: 1000000060,
} as const;

/** The fixture's provider rows (NPPES layout). */
export function fixtureProviders(): Row[] {
  return [
    prov(NPI.alice, { entity_type: 1, name: 'Alice Smith, MD', first_name: 'Alice', last_name: 'Smith', city: 'San Francisco', ...at('94110'), taxonomy: '207Q00000X', taxonomy_description: 'Family Medicine' }),
    prov(NPI.bayview, { name: 'Bayview Medical Group', org_name: 'Bayview Medical Group', city: 'San Francisco', ...at('94110'), taxonomy: '261QP2300X', taxonomy_description: 'Clinic/Center, Primary Care' }),
    prov(NPI.sunset, { name: 'Sunset Imaging Center LLC', org_name: 'Sunset Imaging Center LLC', other_names: ['Sunset MRI'], city: 'San Francisco', ...at('94103'), taxonomy: '261QR0200X', taxonomy_description: 'Clinic/Center, Radiology' }),
    prov(NPI.txdoc, { entity_type: 1, name: 'Tom Rivera, MD', state: 'TX', city: 'Austin', zip5: '78701', taxonomy_description: 'Internal Medicine' }),
    prov(NPI.oldtown, { name: 'Old Town Clinic', city: 'Palo Alto', ...at('94301'), deactivation_date: '2024-05-01' }),
    prov(NPI.oakSf, { name: 'Oak Street Clinic', city: 'San Francisco', ...at('94110'), address: '1 Oak St' }),
    prov(NPI.oakLa, { name: 'Oak Street Clinic', city: 'Los Angeles', ...at('90012'), address: '9 Oak St' }),
    prov(NPI.oneMedical, { name: '1Life Healthcare Inc', org_name: '1Life Healthcare Inc', city: 'San Francisco', ...at('94103'), subpart: true, parent_org_name: '1Life Healthcare Holdings', taxonomy_description: 'Clinic/Center, Primary Care' }),
    prov(NPI.stanford, { name: 'Stanford Health Care', org_name: 'Stanford Health Care', city: 'Palo Alto', ...at('94301'), taxonomy_description: 'General Acute Care Hospital' }),
    ...[1, 2, 3, 4, 5].map((i) => prov(1000000100 + i, { entity_type: 1, name: `Filler Doctor${i}, MD`, city: 'San Francisco', ...at('94110') })),
  ];
}

const group = (k: string, tin: string, name: string, npis: number[]): Row => ({ group_key: k, tin_type: 'ein', tin_value: tin, npis, business_name: name, network_names: [] });
const rate = (code: string, g: string, r: number, files: string[], o: Partial<Row> = {}): Row => ({
  billing_code_type: 'CPT', code_prefix: codePrefix(code), billing_code: code, negotiation_arrangement: 'ffs', negotiated_type: 'negotiated',
  negotiated_rate: r, billing_class: 'professional', service_code: ['11'], group_key: g, file_keys: files, ...o,
});

export function fixtureTables(): Record<string, Row[]> {
  const groups = [
    group('G1', '111111111', 'Bayview Medical Group', [NPI.alice, NPI.bayview]),
    group('G2', '222222222', 'Harbor Physicians', [NPI.alice]),
    group('G3', '333333333', 'Sunset Imaging Center LLC', [NPI.sunset, NPI.oldtown]),
    group('G4', '444444444', 'Texas Physicians Group', [NPI.txdoc]),
    group('G10', '555555555', 'Oak Street Clinic SF', [NPI.oakSf]),
    ...[1, 2, 3, 4, 5].map((i) => group(`G${4 + i}`, `90000000${i}`, `Filler Group ${i}`, [1000000100 + i])),
  ];
  const members = groups.flatMap((g) => (g.npis as number[]).map((n) => ({ npi: n, group_key: g.group_key, npi_bucket: n % 64 })));
  const gf = (g: string, ...files: string[]): Row[] => files.map((f) => ({ group_key: g, file_key: f }));
  return {
    payers: [
      { key: 'acme', label: 'Acme Health', accepted_names: ['Acme Health', 'Acme', 'AH'], reporting_entity_names: ['Acme Health Insurance Co'], exact_plan_identifiers: ['employerName', 'planName'], coverage: 'California (test)', blue_card: false, group_number_states: [] },
      { key: 'bcbstx', label: 'Blue Cross and Blue Shield of Texas', accepted_names: ['BCBSTX', 'Blue Cross Blue Shield of Texas'], reporting_entity_names: ['Health Care Service Corporation'], exact_plan_identifiers: ['employerName', 'planName', 'groupNumber'], coverage: 'Texas (test)', blue_card: true, group_number_states: ['IL', 'TX', 'OK', 'NM', 'MT'] },
      { key: 'medicare', label: 'Original Medicare (Part B)', accepted_names: ['Medicare', 'Original Medicare'], reporting_entity_names: [], exact_plan_identifiers: [], coverage: 'National (Medicare fee schedule)', blue_card: false, group_number_states: [] },
    ],
    plans: [
      { plan_key: 'P1', reporting_entity_name: 'Acme Health Insurance Co', reporting_entity_type: 'health insurance issuer', plan_name: 'Acme PPO 1500', plan_id_type: 'EIN', plan_id: '941111111', plan_market_type: 'group', plan_sponsor_name: 'Pacific Tile & Stone Co.', payer_key: 'acme' },
      { plan_key: 'P2', reporting_entity_name: 'Acme Health Insurance Co', reporting_entity_type: 'health insurance issuer', plan_name: 'Acme Select HMO', plan_id_type: 'EIN', plan_id: '942222222', plan_market_type: 'group', plan_sponsor_name: 'Redwood Robotics Inc.', payer_key: 'acme' },
      { plan_key: 'P3', reporting_entity_name: 'Health Care Service Corporation', plan_name: 'ERS HealthSelect 123456', plan_id_type: 'EIN', plan_id: '746000000', plan_market_type: 'group', plan_sponsor_name: 'Employees Retirement System of Texas', payer_key: null },
      { plan_key: 'P4', reporting_entity_name: 'Health Care Service Corporation', plan_name: 'Employer Blue PPO', plan_id_type: 'EIN', plan_id: '747000000', plan_market_type: 'group', plan_sponsor_name: 'Lone Star Widgets', payer_key: null },
    ],
    plan_files: [
      { plan_key: 'P1', file_key: 'F_PPO', file_type: 'in-network' },
      { plan_key: 'P2', file_key: 'F_HMO', file_type: 'in-network' },
      { plan_key: 'P3', file_key: 'F_TX', file_type: 'in-network' },
      { plan_key: 'P4', file_key: 'F_TX2', file_type: 'in-network' },
    ],
    source_files: ['F_PPO', 'F_HMO', 'F_TX', 'F_TX2'].map((f) => ({ file_key: f, url: `/tmp/${f}.json`, file_type: 'in-network', status: 'complete' })),
    provider_groups: groups,
    group_members: members,
    group_files: [
      ...gf('G1', 'F_PPO', 'F_HMO'), ...gf('G2', 'F_PPO'), ...gf('G3', 'F_PPO', 'F_HMO'), ...gf('G4', 'F_TX'), ...gf('G10', 'F_HMO'),
      ...[1, 2, 3, 4, 5].flatMap((i) => gf(`G${4 + i}`, 'F_PPO')),
    ],
    rates: [
      rate('99213', 'G1', 120, ['F_PPO']),
      rate('99213', 'G1', 100, ['F_HMO']),
      rate('99213', 'G10', 100, ['F_HMO']),
      rate('99213', 'G2', 150, ['F_PPO']),
      rate('70551', 'G3', 600, ['F_PPO']),
      rate('70551', 'G3', 450, ['F_HMO']),
      rate('99213', 'G4', 95, ['F_TX']),
      ...[90, 100, 110, 130, 140].map((r, i) => rate('99213', `G${5 + i}`, r, ['F_PPO'])),
    ],
    zip_centroids: Object.entries(Z).map(([zip5, [latitude, longitude]]) => ({ zip5, latitude, longitude, state: 'CA' })),
  };
}

export interface Fixture {
  dir: string;
  db: SnapshotDb;
  pricing: PricingPorts;
  ctx: HandlerContext;
  close(): void;
}

/** Builds the fixture snapshot in a temp dir and opens it with the real DuckDB adapters. */
export async function openFixture(extra: Record<string, Row[]> = {}, manifest: { synthetic?: boolean } = {}): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'netstat-'));
  const snap = join(dir, 'snap');
  const tables: Record<string, Row[]> = { ...fixtureTables(), providers: fixtureProviders(), ...extra };
  Object.assign(tables, withGroupSets(tables.rates ?? [], tables.group_sets ?? []));
  await buildTestSnapshot(snap, tables, { id: 'fixture', synthetic: manifest.synthetic ?? false, dataVintage: 'test fixture 2026' });
  const aliases = join(dir, 'brand-aliases.json');
  writeFileSync(aliases, JSON.stringify({ brands: [{ brand: 'One Medical', aliases: ['OneMedical'], names: ['1Life Healthcare Inc'] }] }));
  const db = await SnapshotDb.openDir(snap);
  const pricing: PricingPorts = {
    snapshot: () => db.current(),
    network: createNetworkPort(db),
    providers: createProviderPort(db, { brandAliasesPath: aliases }),
  };
  const ctx = {
    caller: { kind: 'anonymous', ip: '127.0.0.1' },
    ports: { pricing } as unknown as HandlerContext['ports'],
    log: pino({ level: 'silent' }),
    requestId: 'test',
    surface: 'pricing',
    urls: { baseUrl: 'http://localhost', pricingUrl: 'http://localhost' },
  } satisfies HandlerContext;
  return { dir, db, pricing, ctx, close: () => { db.close(); rmSync(dir, { recursive: true, force: true }); } };
}

/**
 * Unit-test fake of the catalog/payer/Medicare/words helpers (STYLE.md 3: fakes for unit tests
 * only), so handler tests do not depend on the real Medicare files. The integration wiring test
 * uses the real modules.
 */
import type { NetworkStatusHelpers } from '../../engine/pricing/network-status.deps.ts';
import type { PayerInfo } from '../../engine/pricing/plan-resolution.types.ts';

const FAKE_PAYERS: (PayerInfo & { accepted: string[] })[] = [
  { key: 'acme', label: 'Acme Health', accepted: ['Acme Health', 'Acme', 'AH'], reportingEntityNames: ['Acme Health Insurance Co'], exactPlanIdentifiers: ['employerName', 'planName'], groupNumberStates: [], coverage: 'California (test)', blueCard: false },
  { key: 'bcbstx', label: 'Blue Cross and Blue Shield of Texas', accepted: ['BCBSTX', 'Blue Cross Blue Shield of Texas'], reportingEntityNames: ['Health Care Service Corporation'], exactPlanIdentifiers: ['employerName', 'planName', 'groupNumber'], groupNumberStates: ['IL', 'TX', 'OK', 'NM', 'MT'], coverage: 'Texas (test)', blueCard: true },
  { key: 'medicare', label: 'Original Medicare', accepted: ['Medicare'], reportingEntityNames: [], exactPlanIdentifiers: [], groupNumberStates: [], coverage: 'national', blueCard: false },
];
const norm = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const CATALOG: Record<string, { name: string; category: string; related: string[] }> = {
  '99213': { name: 'Office visit, established patient, low complexity', category: 'Evaluation and management', related: ['99214'] },
  '99214': { name: 'Office visit, established patient, moderate complexity', category: 'Evaluation and management', related: ['99213'] },
  '70551': { name: 'MRI of the brain without contrast', category: 'Imaging', related: [] },
  '99203': { name: 'Office visit, new patient, low complexity', category: 'Evaluation and management', related: ['99213', '99214'] },
};

export const fakeHelpers: NetworkStatusHelpers = {
  async resolvePayer(name) {
    return FAKE_PAYERS.find((p) => p.accepted.some((a) => norm(a) === norm(name))) ?? null;
  },
  async listPayers() {
    return FAKE_PAYERS;
  },
  async entityResolver() {
    return (name) => FAKE_PAYERS.find((p) => p.reportingEntityNames.some((n) => norm(n) === norm(name))) ?? null;
  },
  async serviceFor(code) {
    const c = CATALOG[code.toUpperCase()];
    return c ? { code: code.toUpperCase(), name: c.name, category: c.category, appliesTo: 'anyone', priceNote: 'test', medicareNote: 'test', relatedCodes: c.related.map((r) => ({ code: r, name: CATALOG[r]!.name, when: 'test' })) } : null;
  },
  async codeType() {
    return 'CPT';
  },
  async supportedServices() {
    return Object.entries(CATALOG).map(([code, c]) => ({ code, name: c.name, category: c.category }));
  },
  async relatedOptions(code) {
    return (CATALOG[code]?.related ?? []).map((r) => ({ code: r, name: CATALOG[r]!.name }));
  },
  async medicareAnchor({ setting, rate }) {
    const allowed = 100;
    return { source: 'test MPFS', medicareAllowed: allowed, rateRatio: rate === null ? null : Math.round((rate / allowed) * 100) / 100, year: 2026, setting };
  },
  async medicareBlock({ payerKey }) {
    return payerKey === 'medicare'
      ? { coverage: 'original_medicare', assumed: true, year: 2026, partBDeductible: 283, coinsurancePct: 20, limitingChargePct: 115, medigap: false, note: 'test' }
      : null;
  },
  async medicareStatuses(npis) {
    return new Map(npis.map((n) => [n, { enrolled: false, assignment: 'unknown', optedOut: false, basis: 'test: no PECOS data' }]));
  },
  async patientShare({ rate }) {
    return { afterDeductible: null, beforeDeductibleMet: rate, limitingChargeMax: null, note: 'test' };
  },
  words: {
    methodology: () => 'test methodology',
    methodologyShort: () => 'test methodology (short)',
    disclaimer: () => 'test disclaimer',
    billingEvidenceDefinitions: () => ({ nMemberships: 'test' }),
    signalDefinitions: () => ({}),
    networkNote: () => 'inNetwork false means not found in the published files, never a hard out-of-network verdict.',
    rateFetchNote: () => 'test rate fetch note',
  },
};
