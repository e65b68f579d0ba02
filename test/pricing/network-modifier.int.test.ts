/**
 * Medicare anchor for component rates (H9): a rate published with billing_code_modifier ["26"]
 * (professional component) or ["TC"] (technical component) is compared with that component's MPFS
 * amount, not the global one. RVUs hand-copied from PPRRVU2026_Apr_nonQPP (RVU26B) for 70551:
 *   global: work 1.44, PE 4.31 (facility NA), MP 0.10; OPPS PE 7.77, MP 0.12
 *   26:     work 1.44, PE 0.51 / 0.51,        MP 0.08
 *   TC:     work 0.00, PE 3.80 (facility NA), MP 0.02; OPPS PE 7.26, MP 0.04
 * GPCI2026 carrier 01112 locality 05 (San Francisco): 1.095 / 1.410 / 0.425; CF 33.4009.
 *   70551-26 facility:     (1.44x1.095 + 0.51x1.41 + 0.08x0.425) x 33.4009 = 2.3299 x 33.4009 = $77.82
 *   70551-TC non-facility: (0 + 3.80x1.41 + 0.02x0.425) x 33.4009 = 5.3665 x 33.4009 = $179.25 (OPPS cap higher)
 *   70551 global non-facility: (1.5768 + 6.0771 + 0.0425) x 33.4009 = 7.6964 x 33.4009 = $257.07
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { NetworkStatusRequestSchema, NetworkStatusResponseSchema, type NetworkStatusResponse } from '../../engine/pricing/pricing.schema.ts';
import { networkStatus, type NetworkStatusInput } from '../../engine/pricing/network-status.ts';
import { DuckReferenceStore } from '../../engine/pricing/adapters/reference.duckdb.ts';
import { pfsComponent } from '../../engine/pricing/rates.ts';
import type { RateRow } from '../../engine/pricing/network-status.ports.ts';
import { codePrefix } from '../../schemas/pricing-tables.ts';
import { fixtureProviders, fixtureTables, openFixture, type Fixture } from './network-fixture.ts';

const rvu = (modifier: string, work: number, pe: number, fpe: number, mp: number, fNa: boolean, opps: [number, number, number]) => ({
  year: 2026, release: 'RVU26B', qpp: false, hcpcs: '70551', modifier, status: 'A', work_rvu: work, nf_pe_rvu: pe, f_pe_rvu: fpe, mp_rvu: mp,
  nf_total: work + pe + mp, f_total: work + fpe + mp, conversion_factor: 33.4009, nf_na: false, f_na: fNa,
  opps_nf_pe_rvu: opps[0], opps_f_pe_rvu: opps[1], opps_mp_rvu: opps[2],
});
const MEDICARE = {
  mpfs_rvu: [rvu('', 1.44, 4.31, 4.31, 0.1, true, [7.77, 7.77, 0.12]), rvu('26', 1.44, 0.51, 0.51, 0.08, false, [0, 0, 0]), rvu('TC', 0, 3.8, 3.8, 0.02, true, [7.26, 7.26, 0.04])],
  gpci: [{ year: 2026, mac: '01112', state: 'CA', locality: '05', locality_name: 'SAN FRANCISCO-OAKLAND-BERKELEY', work_gpci: 1.095, work_gpci_no_floor: 1.095, pe_gpci: 1.41, mp_gpci: 0.425 }],
  zip_localities: [{ zip5: '94110', state: 'CA', carrier: '01112', locality: '05' }],
  conversion_factors: [{ year: 2026, kind: 'mpfs', value: 33.4009, source: 'CY 2026 PFS final rule' }],
};

const RAD = 1000000096; // radiologist: 70551-26 at a hospital (POS 22)
const TCI = 1000000097; // imaging center: 70551-TC in the office (POS 11)
const GLOB = 1000000098; // imaging center: global 70551 in the office

let fx: Fixture;
beforeAll(async () => {
  const t = fixtureTables();
  const at = { state: 'CA', city: 'San Francisco', zip5: '94110', latitude: 37.7486, longitude: -122.4158, other_names: [], subpart: false };
  const g = (k: string, npi: number, name: string) => ({ group_key: k, tin_type: 'ein', tin_value: `77${npi}`.slice(0, 9), npis: [npi], business_name: name, network_names: [] });
  const r = (gk: string, rate: number, mods: string[] | null, pos: string) => ({
    billing_code_type: 'CPT', code_prefix: codePrefix('70551'), billing_code: '70551', negotiation_arrangement: 'ffs', negotiated_type: 'negotiated', negotiated_rate: rate,
    billing_class: 'professional', service_code: [pos], billing_code_modifier: mods, group_key: gk, file_keys: ['F_PPO'],
  });
  fx = await openFixture({
    ...MEDICARE,
    providers: [
      ...fixtureProviders(),
      { npi: RAD, entity_type: 1, name: 'Rhea Diaz, MD', ...at, taxonomy_description: 'Diagnostic Radiology' },
      { npi: TCI, entity_type: 2, name: 'Mission Scan Center', ...at, taxonomy_description: 'Clinic/Center, Radiology' },
      { npi: GLOB, entity_type: 2, name: 'Valencia Imaging', ...at, taxonomy_description: 'Clinic/Center, Radiology' },
    ],
    provider_groups: [...t.provider_groups!, g('G31', RAD, 'Bay Radiology Partners'), g('G32', TCI, 'Mission Scan Center'), g('G33', GLOB, 'Valencia Imaging')],
    group_members: [...t.group_members!, ...[['G31', RAD], ['G32', TCI], ['G33', GLOB]].map(([k, n]) => ({ npi: n, group_key: k, npi_bucket: (n as number) % 64 }))],
    group_files: [...t.group_files!, { group_key: 'G31', file_key: 'F_PPO' }, { group_key: 'G32', file_key: 'F_PPO' }, { group_key: 'G33', file_key: 'F_PPO' }],
    rates: [...t.rates!, r('G31', 70, ['26'], '22'), r('G32', 200, ['TC'], '11'), r('G33', 300, null, '11')],
  });
  fx.pricing.reference = new DuckReferenceStore(fx.db);
});
afterAll(() => fx.close());

async function ask(input: NetworkStatusInput): Promise<NetworkStatusResponse> {
  return NetworkStatusResponseSchema.parse(await networkStatus(NetworkStatusRequestSchema.parse(input), fx.ctx));
}
const PPO = { payerName: 'acme', employerName: 'Pacific Tile & Stone' };

test('70551-26 rate is anchored on the professional-component row: $77.82 facility, ratio 0.90', async () => {
  const m = (await ask({ npi: String(RAD), code: '70551', zip: '94110', planHints: PPO })).matches[0]!;
  expect(m.rate).toBe(70);
  expect(m.setting).toBe('facility');
  expect(m.medicareAnchor).toMatchObject({ medicareAllowed: 77.82, rateRatio: 0.9, setting: 'facility' });
  expect(m.medicareAnchor!.source).toMatch(/modifier 26 \(professional component\)/);
});

test('70551-TC rate is anchored on the technical-component row: $179.25 non-facility, ratio 1.12', async () => {
  const m = (await ask({ npi: String(TCI), code: '70551', zip: '94110', planHints: PPO })).matches[0]!;
  expect(m.medicareAnchor).toMatchObject({ medicareAllowed: 179.25, rateRatio: 1.12, setting: 'non-facility' });
  expect(m.medicareAnchor!.source).toMatch(/modifier TC \(technical component\)/);
});

test('a global rate keeps the global anchor: $257.07', async () => {
  const m = (await ask({ npi: String(GLOB), code: '70551', zip: '94110', planHints: PPO })).matches[0]!;
  expect(m.medicareAnchor).toMatchObject({ medicareAllowed: 257.07, rateRatio: 1.17 });
  expect(m.medicareAnchor!.source).not.toMatch(/modifier/);
});

test('pfsComponent: 26, TC, global, mixed and percentage rows', () => {
  const row = (mods: string[] | null, type = 'negotiated'): RateRow => ({
    billing_code_type: 'CPT', billing_code: '70551', negotiated_type: type, negotiated_rate: 1, negotiation_arrangement: 'ffs', billing_class: 'professional',
    setting: null, service_code: null, billing_code_modifier: mods, expiration_date: null, group_key: 'g', file_keys: [],
  });
  expect(pfsComponent([row(['26']), row([' 26', 'LT'])])).toBe('26');
  expect(pfsComponent([row(['tc'])])).toBe('TC');
  expect(pfsComponent([row(null), row(['RT'])])).toBe('');
  expect(pfsComponent([row(['26']), row(null)])).toBeNull();
  expect(pfsComponent([row(['26']), row(null, 'percentage')])).toBe('26');
  expect(pfsComponent([])).toBe('');
});
