/**
 * network-status through the real reference modules (payers registry, service catalog, Medicare
 * fee schedule and patient share; no fakes): the fixture snapshot plus hand-copied 2026 Medicare
 * rows for 99213 in San Francisco (PPRRVU2026 RVU26B: work 1.30, non-facility PE 1.46, MP 0.09;
 * GPCI2026 carrier 01112 locality 05: 1.095 / 1.410 / 0.425; CF 33.4009).
 *   Medicare allowed = (1.30x1.095 + 1.46x1.410 + 0.09x0.425) x 33.4009 = 3.52035 x 33.4009 = $117.58.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { NetworkStatusRequestSchema, NetworkStatusResponseSchema, type NetworkStatusResponse } from '../../engine/pricing/pricing.schema.ts';
import { networkStatus, type NetworkStatusInput } from '../../engine/pricing/network-status.ts';
import { DuckReferenceStore } from '../../engine/pricing/adapters/reference.duckdb.ts';
import { DuckEvidenceStore } from '../../engine/pricing/adapters/evidence.duckdb.ts';
import { NPI, openFixture, type Fixture } from './network-fixture.ts';

const MEDICARE = {
  mpfs_rvu: [{ year: 2026, release: 'RVU26B', qpp: false, hcpcs: '99213', modifier: '', status: 'A', work_rvu: 1.3, nf_pe_rvu: 1.46, f_pe_rvu: 0.33, mp_rvu: 0.09, nf_total: 2.85, f_total: 1.72, conversion_factor: 33.4009, nf_na: false, f_na: false }],
  gpci: [{ year: 2026, mac: '01112', state: 'CA', locality: '05', locality_name: 'SAN FRANCISCO-OAKLAND-BERKELEY', work_gpci: 1.095, work_gpci_no_floor: 1.095, pe_gpci: 1.41, mp_gpci: 0.425 }],
  zip_localities: [{ zip5: '94110', state: 'CA', carrier: '01112', locality: '05' }],
  conversion_factors: [{ year: 2026, kind: 'mpfs', value: 33.4009, source: 'CY 2026 PFS final rule' }],
  medicare_params: [{ year: 2026, part_b_deductible: 283, coinsurance_pct: 20, nonpar_pct: 95, limiting_charge_pct: 115, source: 'CMS 2026 Part B premiums and deductibles' }],
};

let fx: Fixture;
beforeAll(async () => {
  fx = await openFixture(MEDICARE);
  fx.pricing.reference = new DuckReferenceStore(fx.db);
  fx.pricing.evidence = new DuckEvidenceStore(fx.db);
});
afterAll(() => fx.close());

async function ask(input: NetworkStatusInput): Promise<NetworkStatusResponse> {
  return NetworkStatusResponseSchema.parse(await networkStatus(NetworkStatusRequestSchema.parse(input), fx.ctx));
}

test('exact plan, real catalog and Medicare anchor: rate 100 is 0.85 x Medicare $117.58', async () => {
  const r = await ask({ npi: String(NPI.alice), code: '99213', zip: '94110', planHints: { payerName: 'acme', planName: 'Acme Select HMO' } });
  expect(r.service).toMatchObject({ code: '99213', category: 'Evaluation & Management' });
  // A priced code: the catalogue is not repeated in the answer (issue 37, item 9).
  expect(r.supportedServices).toEqual([]);
  const m = r.matches[0]!;
  expect(m).toMatchObject({ rate: 100, inNetwork: true, distanceKm: 0 });
  expect(m.medicareAnchor).toMatchObject({ medicareAllowed: 117.58, rateRatio: 0.85, year: 2026, setting: 'non-facility' });
  expect(m.patientShare!.afterDeductible).toBeNull();
  expect(m.patientShare!.note).toMatch(/deductible/);
  expect(m.medicareStatus!.basis).toMatch(/not loaded/);
  expect(r.medicare).toBeNull();
  for (const k of ['methodology', 'disclaimer', 'rateFetchNote', 'networkNote'] as const) expect(r[k].length).toBeGreaterThan(40);
});

test('Original Medicare: anchor-based patient share; plain "Medicare" adds the medicare_type ask', async () => {
  const orig = await ask({ npi: String(NPI.alice), code: '99213', planHints: { payerName: 'Original Medicare' } });
  expect(orig.medicare).toMatchObject({ assumed: false, partBDeductible: 283, coinsurancePct: 20 });
  // 20% of 117.58 = 23.52; before the deductible the whole 117.58 (below $283); limiting charge 117.58 x 0.95 x 1.15 = 128.46.
  expect(orig.matches[0]!.patientShare).toMatchObject({ afterDeductible: 23.52, beforeDeductibleMet: 117.58, limitingChargeMax: 128.46 });
  expect(orig.needsMoreInfo.map((a) => a.field)).not.toContain('medicare_type');
  const plain = await ask({ npi: String(NPI.alice), code: '99213', planHints: { payerName: 'medicare' } });
  expect(plain.medicare!.assumed).toBe(true);
  expect(plain.needsMoreInfo.map((a) => a.field)).toContain('medicare_type');
});

test('real catalog: an unpriced catalog code asks with related codes; a non-catalog code is 400 on code', async () => {
  const r = await ask({ npi: String(NPI.alice), code: '99203', planHints: { payerName: 'Acme', employerName: 'Pacific Tile' } });
  const a = r.needsMoreInfo.find((x) => x.field === 'code')!;
  expect(a.options.map((o) => (o as { code: string }).code)).toContain('99213');
  await expect(networkStatus({ npi: String(NPI.alice), code: 'ZZ999' }, fx.ctx)).rejects.toMatchObject({ code: 'unknown_code', details: { field: 'code' } });
});
