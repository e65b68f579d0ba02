/**
 * network-status edge cases in the registry and fee schedule data (H9):
 * - NPPES blanks the whole row of a deactivated NPI, so providers.name is NULL (schemas/
 *   pricing-tables.ts: name not required). Lookups by NPI and name searches that reach such a row
 *   (through a brand alias listing its NPI, or as the NPI-type TIN of a billing group) must answer
 *   with a fallback display name, never a 5xx.
 * - Original Medicare publishes no Transparency in Coverage files and has no network: its words
 *   never say "not found in Original Medicare's published in-network files".
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NetworkStatusRequestSchema, NetworkStatusResponseSchema, type NetworkStatusResponse } from '../../engine/pricing/pricing.schema.ts';
import { networkStatus, type NetworkStatusInput } from '../../engine/pricing/network-status.ts';
import { createProviderPort } from '../../engine/pricing/adapters/providers.duckdb.ts';
import { DuckEvidenceStore } from '../../engine/pricing/adapters/evidence.duckdb.ts';
import { ORIGINAL_MEDICARE } from '../../engine/pricing/network-status.words.ts';
import { codePrefix } from '../../schemas/pricing-tables.ts';
import { NPI, fakeHelpers, fixtureProviders, fixtureTables, openFixture, type Fixture } from './network-fixture.ts';

/** A deactivated NPI as NPPES publishes it: only the NPI and the deactivation date are left. */
const BLANK = 1000000090;

let fx: Fixture;
beforeAll(async () => {
  const t = fixtureTables();
  const blankRow = {
    npi: BLANK, entity_type: null, name: null, org_name: null, first_name: null, last_name: null, other_names: null, address: null, city: null,
    state: null, zip5: null, latitude: null, longitude: null, taxonomy: null, taxonomy_description: null, subpart: null, deactivation_date: '2023-02-01',
  };
  fx = await openFixture({
    providers: [...fixtureProviders(), blankRow],
    // The blank NPI bills as its own (NPI-type) TIN in G20 and is a member of G3 too.
    provider_groups: [...t.provider_groups!, { group_key: 'G20', tin_type: 'npi', tin_value: String(BLANK), npis: [BLANK], business_name: null, network_names: [] }],
    group_members: [...t.group_members!, { npi: BLANK, group_key: 'G20', npi_bucket: BLANK % 64 }, { npi: BLANK, group_key: 'G3', npi_bucket: BLANK % 64 }],
    group_files: [...t.group_files!, { group_key: 'G20', file_key: 'F_PPO' }],
    rates: [...t.rates!, { billing_code_type: 'CPT', code_prefix: codePrefix('99213'), billing_code: '99213', negotiation_arrangement: 'ffs', negotiated_type: 'negotiated', negotiated_rate: 80, billing_class: 'professional', service_code: ['11'], group_key: 'G20', file_keys: ['F_PPO'] }],
  });
  // A brand whose alias file lists the blank NPI: a name search reaches the NULL-name row.
  const aliases = join(fx.dir, 'brand-aliases-blank.json');
  writeFileSync(aliases, JSON.stringify({ brands: [{ brand: 'Ghost Care', aliases: [], names: [], npis: [BLANK] }] }));
  fx.pricing.providers = createProviderPort(fx.db, { brandAliasesPath: aliases });
});
afterAll(() => fx.close());

async function ask(input: NetworkStatusInput): Promise<NetworkStatusResponse> {
  return NetworkStatusResponseSchema.parse(await networkStatus(NetworkStatusRequestSchema.parse(input), fx.ctx, fakeHelpers));
}

const FALLBACK = `NPI ${BLANK} (deactivated; no name in NPPES)`;

test('NULL registry name, looked up by NPI: fallback display name, flagged deactivated, rates still read', async () => {
  const r = await ask({ npi: String(BLANK), code: '99213', planHints: { payerName: 'acme', employerName: 'Pacific Tile & Stone' } });
  expect(r.matches).toHaveLength(1);
  const m = r.matches[0]!;
  expect(m.name).toBe(FALLBACK);
  expect(m.deactivated).toBe(true);
  expect(m.inNetwork).toBe(true);
  expect(m.identityCaution).toMatch(/Deactivated NPI/);
  // With a name given too, the comparison with the (absent) registry name does not throw.
  const named = await ask({ npi: String(BLANK), providerName: 'Ghost Care Clinic' });
  expect(named.matches[0]!.name).toBe(FALLBACK);
  expect(named.matches[0]!.matchNote).toMatch(/differs from/);
});

test('NULL registry name reached by a name search (brand alias NPIs) and as a billing TIN: no crash', async () => {
  const r = await ask({ providerName: 'Ghost Care', code: '99213', planHints: { payerName: 'acme', employerName: 'Pacific Tile & Stone' } });
  const m = r.matches.find((x) => x.npi === BLANK);
  expect(m?.name).toBe(FALLBACK);
  expect(m?.identityCaution).toContain(FALLBACK);
  // Sunset Imaging shares G3 with the blank NPI; plain name searches over the index still work.
  const s = await ask({ providerName: 'Sunset Imaging Center', code: '70551' });
  expect(s.matches[0]!.name).toBe('Sunset Imaging Center LLC');
  // G20 bills under the blank NPI's own TIN: its billing entity is named by the fallback, not "null".
  expect(JSON.stringify(r)).not.toMatch(/\bnull(?: \(|,? MD|”)/);
  expect(m!.billingOrg ?? m!.billingCandidates.map((c) => c.billingOrg).join(' ')).not.toMatch(/^null$/);
});

test('provider-evidence store gives the NULL-name row a display name', async () => {
  const p = await new DuckEvidenceStore(fx.db).provider(BLANK);
  expect(p?.name).toBe(FALLBACK);
});

test('Original Medicare: no "not found in its in-network files"; says no network, no TiC files, enrolled + assignment', async () => {
  const r = await ask({ npi: String(NPI.alice), code: '99213', zip: '94110', planHints: { payerName: 'Medicare' } }); // the fake registry's accepted name
  const m = r.matches[0]!;
  expect(r.plan.payer).toBe('medicare');
  expect(m.inNetwork).toBe(false);
  const words = [m.note, m.rateNote, m.serviceEvidence, r.networkNote, r.plan.basis, r.plan.coverageNote].join(' | ');
  expect(words).not.toMatch(/not found in [^|]*Medicare[^|]*(published|in-network) files/i);
  expect(words).not.toMatch(/no plan of it appears|call the insurer/i);
  expect(m.note).toMatch(/^Original Medicare has no provider network and publishes no in-network \(Transparency in Coverage\) files/);
  expect(m.note).toMatch(/any provider enrolled in Medicare can be seen, and one who accepts assignment/);
  expect(m.note).toMatch(/not found in the Medicare enrollment records/); // fake statuses: enrolled false
  expect(m.rateNote).toMatch(/Physician Fee Schedule amount for 99213 \(medicareAnchor\)/);
  expect(r.networkNote).toMatch(/^Original Medicare has no network and publishes no in-network files/);
  expect(r.plan.basis).toMatch(/^Original Medicare \(Part B\): Medicare has no provider network/);
  // A commercial payer keeps the TiC wording.
  const acme = await ask({ npi: String(NPI.txdoc), planHints: { payerName: 'acme' } });
  expect(acme.matches[0]!.note).toMatch(/^Not found in Acme Health's published in-network files/);
});

test('Original Medicare note follows medicareStatus: opted out, enrolled, unknown', () => {
  expect(ORIGINAL_MEDICARE.note({ enrolled: true, assignment: 'accepts', optedOut: true })).toMatch(/opted out of Medicare: Medicare pays nothing/);
  expect(ORIGINAL_MEDICARE.note({ enrolled: true, assignment: 'accepts assignment', optedOut: false })).toMatch(/enrollment records list this provider \(assignment: accepts assignment\)/);
  expect(ORIGINAL_MEDICARE.note(null)).toMatch(/not loaded in this snapshot: ask the provider whether they accept Medicare assignment/);
});
