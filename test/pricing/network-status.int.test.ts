/**
 * network-status on a hand-made snapshot (test/pricing/network-fixture.ts): every expected figure
 * below is worked out by hand from the fixture's rows.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { NetworkStatusRequestSchema, NetworkStatusResponseSchema, type NetworkStatusResponse } from '../../engine/pricing/pricing.schema.ts';
import { networkStatus, type NetworkStatusInput } from '../../engine/pricing/network-status.ts';
import { AppError } from '../../engine/core/errors.ts';
import { fakeHelpers, NPI, openFixture, type Fixture } from './network-fixture.ts';

let fx: Fixture;
beforeAll(async () => { fx = await openFixture(); });
afterAll(() => fx.close());

async function ask(input: NetworkStatusInput): Promise<NetworkStatusResponse> {
  const res = await networkStatus(NetworkStatusRequestSchema.parse(input), fx.ctx, fakeHelpers);
  // Every answer validates against the response contract.
  return NetworkStatusResponseSchema.parse(res);
}
const m0 = (r: NetworkStatusResponse) => r.matches[0]!;

describe('plan resolution', () => {
  test('payer alias + employer reaches the exact plan; a multi-TIN clinician is partitioned (rate null, range + ask)', async () => {
    const r = await ask({ npi: String(NPI.alice), code: '99213', planHints: { payerName: 'a.h.', employerName: 'Pacific Tile and Stone' } });
    expect(r.plan).toMatchObject({ payer: 'acme', payerLabel: 'Acme Health', matchTier: 'employer', sponsor: 'Pacific Tile & Stone Co.', payerSource: 'planHints', planVariants: null });
    expect(r.plan.coverageSelection).toMatchObject({ planKey: 'P1', planName: 'Acme PPO 1500' });
    const m = m0(r);
    expect(m).toMatchObject({ npi: NPI.alice, inNetwork: true, networkEvidence: 1, rate: null, rateRange: { min: 120, max: 150, median: 135 }, multiEntity: true });
    expect(m.billingOutlook).toMatchObject({ mode: 'partitioned', rate: null });
    expect(m.billingOutlook!.ask).toMatch(/bill/);
    expect(m.billingOutlook!.warning).toMatch(/120 to 150/);
    expect(m.billingCandidates.map((c) => [c.billingOrg, c.tin, c.rate])).toEqual([
      ['Bayview Medical Group', '111111111', 120], ['Harbor Physicians', '222222222', 150],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
    expect(r.needsMoreInfo.map((a) => a.field)).toEqual([]);
  });

  test('plan name alone reaches the HMO: one billing entity, one rate', async () => {
    const r = await ask({ npi: String(NPI.alice), code: '99213', planHints: { payerName: 'Acme', planName: 'acme select hmo' } });
    expect(r.plan).toMatchObject({ matchTier: 'plan_name', sponsor: 'Redwood Robotics Inc.' });
    const m = m0(r);
    expect(m).toMatchObject({ inNetwork: true, rate: 100, multiEntity: false, billingOrg: 'Bayview Medical Group', typicalRate: 100 });
    expect(m.billingOutlook).toMatchObject({ mode: 'single', rate: 100, warning: null });
    expect(m.rateAssessment).toMatch(/Only 1 comparable/);
    expect(m.medicareAnchor).toMatchObject({ medicareAllowed: 100, rateRatio: 1 });
  });

  test('payer only: a range across plan variants and asks for employer and plan name', async () => {
    const r = await ask({ npi: String(NPI.sunset), code: '70551', planHints: { payerName: 'ACME' } });
    expect(r.plan).toMatchObject({ matchTier: 'payer', planVariants: { count: 2 } });
    expect(r.plan.basis).toMatch(/Payer-level estimate/);
    expect(m0(r)).toMatchObject({ rate: null, rateRange: { min: 450, max: 600, median: 525 }, inNetwork: true, networkEvidence: 2 });
    expect(m0(r).rangeNote).toMatch(/2 published rate rows/);
    const fields = r.needsMoreInfo.map((a) => a.field);
    expect(fields).toEqual(['employerName', 'planName']);
    expect(r.needsMoreInfo[0]!.options).toEqual(['Pacific Tile & Stone Co.', 'Redwood Robotics Inc.']);
  });

  test('group number reaches a Texas state plan; without it the ask is offered', async () => {
    const r = await ask({ npi: String(NPI.txdoc), code: '99213', planHints: { payerName: 'bcbstx', groupNumber: '123-456' } });
    expect(r.plan).toMatchObject({ payer: 'bcbstx', matchTier: 'group_number', sponsor: 'Employees Retirement System of Texas' });
    expect(m0(r)).toMatchObject({ inNetwork: true, rate: 95 });
    const r2 = await ask({ npi: String(NPI.txdoc), planHints: { payerName: 'Blue Cross Blue Shield of Texas' } });
    expect(r2.needsMoreInfo.map((a) => a.field)).toContain('groupNumber');
    // Group numbers are not matched for other payers.
    const r3 = await ask({ npi: String(NPI.alice), planHints: { payerName: 'Acme', groupNumber: '123456' } });
    expect(r3.plan.matchTier).toBe('payer');
    expect(r3.plan.coverageNote).toMatch(/Group numbers are matched only/);
  });

  test('no payer: payerName ask with the registry as options; unavailable stops every ask', async () => {
    const r = await ask({ npi: String(NPI.alice), code: '99213' });
    expect(r.plan).toMatchObject({ matchTier: 'none', payer: null, payerSource: 'none' });
    expect(r.needsMoreInfo[0]).toMatchObject({ field: 'payerName' });
    expect(r.needsMoreInfo[0]!.options).toContain('Acme Health');
    expect(m0(r).otherPayers.map((o) => o.payer)).toEqual(['acme']);
    expect(m0(r).rate).toBeNull();
    const r2 = await ask({ npi: String(NPI.alice), code: '99213', planHints: { unavailable: true } });
    expect(r2.needsMoreInfo).toEqual([]);
    const r3 = await ask({ npi: String(NPI.alice), planHints: { payerName: 'Nonexistent Mutual' } });
    expect(r3.needsMoreInfo[0]!.field).toBe('payerName');
    expect(r3.plan.coverageNote).toMatch(/did not match/);
  });

  test('Medicare: a medicare_type ask', async () => {
    const r = await ask({ npi: String(NPI.alice), code: '99213', planHints: { payerName: 'Medicare' } });
    expect(r.medicare).toMatchObject({ assumed: true, partBDeductible: 283 });
    expect(r.needsMoreInfo.map((a) => a.field)).toContain('medicare_type');
  });
});

describe('rates', () => {
  test('local distribution: 90 against seven PPO rates in CA is below the 25th percentile', async () => {
    const r = await ask({ npi: '1000000101', code: '99213', planHints: { payerName: 'Acme', employerName: 'Pacific Tile & Stone' } });
    // PPO 99213 rates of CA groups: 90 100 110 120 130 140 150 -> p25 105, median 120, p75 135.
    expect(m0(r)).toMatchObject({ rate: 90, typicalRate: 120, setting: 'non-facility' });
    expect(m0(r).rateAssessment).toMatch(/Below the local 25th percentile of 7 published rates/);
  });

  test('a catalog code with no rates is an ask with related codes; a non-catalog code is a 400 on code', async () => {
    const r = await ask({ npi: String(NPI.alice), code: '99203', planHints: { payerName: 'Acme', employerName: 'Pacific Tile' } });
    const a = r.needsMoreInfo.find((x) => x.field === 'code')!;
    expect(a.options.map((o) => (o as { code: string }).code)).toEqual(['99213', '99214']);
    expect(m0(r).rate).toBeNull();
    await expect(networkStatus({ npi: String(NPI.alice), code: '12345' }, fx.ctx, fakeHelpers)).rejects.toMatchObject({ code: 'unknown_code', details: { field: 'code' } });
  });
});

describe('provider resolution', () => {
  test('DBA name, typo, brand alias', async () => {
    const dba = await ask({ providerName: 'Sunset MRI' });
    expect(m0(dba).npi).toBe(NPI.sunset);
    expect(m0(dba).matchNote).toMatch(/other name \(DBA\)/);
    const typo = await ask({ providerName: 'Sunest Imagign Centre' });
    expect(m0(typo).npi).toBe(NPI.sunset);
    expect(m0(typo).identityCaution).toMatch(/similar, not identical/);
    const brand = await ask({ providerName: 'one medical' });
    expect(m0(brand).npi).toBe(NPI.oneMedical);
    expect(m0(brand).matchNote).toMatch(/One Medical/);
    expect(m0(brand)).toMatchObject({ subpart: true, parentOrganization: '1Life Healthcare Holdings' });
  });

  test('two same-named clinics told apart by ZIP, city in the name, or lat/long', async () => {
    const la = await ask({ providerName: 'Oak Street Clinic', zip: '90012' });
    expect(la.matches.map((m) => m.npi)).toEqual([NPI.oakLa, NPI.oakSf]);
    expect(la.location).toMatchObject({ applied: true, source: 'zip', state: 'CA' });
    expect(m0(la).distanceKm).toBe(0);
    const sf = await ask({ providerName: 'Oak Street Clinic', zip: '94110' });
    expect(m0(sf).npi).toBe(NPI.oakSf);
    const city = await ask({ providerName: 'Oak Street Clinic Los Angeles' });
    expect(m0(city).npi).toBe(NPI.oakLa);
    const ll = await ask({ providerName: 'oak street clinic', latitude: 37.75, longitude: -122.42 });
    expect(ll.location.source).toBe('latlon');
    expect(m0(ll).npi).toBe(NPI.oakSf);
    expect(ll.organizations.map((o) => o.entities)).toEqual([2]);
  });

  test('deactivated NPI flagged; unknown NPI explained', async () => {
    const r = await ask({ providerName: 'Old Town Clinic' });
    expect(m0(r)).toMatchObject({ npi: NPI.oldtown, deactivated: true });
    expect(m0(r).identityCaution).toMatch(/Deactivated/);
    // An NPI the registry lacks is still answered from the files, flagged as unverified.
    const none = await ask({ npi: '1999999999', planHints: { payerName: 'Acme' } });
    expect(none.matches[0]).toMatchObject({ npi: 1999999999, entityType: 'unknown', inNetwork: false });
    expect(none.matches[0]!.identityCaution).toMatch(/could not be checked/);
    const noName = await ask({ providerName: 'Zyxwvut Qwerty' });
    expect(noName.matches).toEqual([]);
    expect(noName.networkNote).toMatch(/No provider name in this snapshot matches/);
  });

  test('limit bounds: 1 and 100 accepted, 0 and 1000 rejected by the schema', async () => {
    expect((await ask({ providerName: 'clinic', limit: 1 })).matches.length).toBe(1);
    expect((await ask({ providerName: 'clinic', limit: 100 })).matches.length).toBeGreaterThan(1);
    expect(NetworkStatusRequestSchema.safeParse({ providerName: 'x', limit: 0 }).success).toBe(false);
    expect(NetworkStatusRequestSchema.safeParse({ providerName: 'x', limit: 1000 }).success).toBe(false);
  });

  test('validation: lat without long, long without lat, no name or NPI', async () => {
    const fail = (i: NetworkStatusInput) => networkStatus(i, fx.ctx, fakeHelpers);
    await expect(fail({ providerName: 'x', latitude: 37 })).rejects.toMatchObject({ code: 'invalid_request', details: { field: 'longitude' } });
    await expect(fail({ providerName: 'x', longitude: -122 })).rejects.toMatchObject({ code: 'invalid_request', details: { field: 'latitude' } });
    await expect(fail({})).rejects.toBeInstanceOf(AppError);
    await expect(fail({})).rejects.toMatchObject({ details: { field: 'providerName' } });
  });
});

describe('snapshot edge cases', () => {
  test('synthetic snapshot says so in plan.basis; an empty snapshot answers without crashing', async () => {
    const synth = await openFixture({}, { synthetic: true });
    try {
      const r = NetworkStatusResponseSchema.parse(await networkStatus({ npi: String(NPI.alice), planHints: { payerName: 'Acme' } }, synth.ctx, fakeHelpers));
      expect(r.plan.basis).toMatch(/synthetic demo data/);
    } finally {
      synth.close();
    }
    const empty = await openFixture({ providers: [], rates: [], group_members: [], provider_groups: [], group_files: [], plans: [], plan_files: [], zip_centroids: [] });
    try {
      const r = NetworkStatusResponseSchema.parse(await networkStatus({ providerName: 'Anything', zip: '94110', code: '99213', planHints: { payerName: 'Acme' } }, empty.ctx, fakeHelpers));
      expect(r.matches).toEqual([]);
      expect(r.networkNote).toMatch(/no provider registry/);
      expect(r.plan.coverageNote).toMatch(/not loaded in this snapshot/);
      expect(r.location.applied).toBe(false);
    } finally {
      empty.close();
    }
  });
});

describe('linked coverage', () => {
  test('a signed-in caller whose patient has linked coverage: the plan resolves from it (payerSource linked_coverage)', async () => {
    const network = fx.pricing.network!;
    const original = network.linkedCoverage.bind(network);
    const seen: unknown[] = [];
    network.linkedCoverage = async (userId, patientId) => {
      seen.push([userId, patientId]);
      return { payerName: 'Acme Health', employerName: null, planName: null, groupNumber: null, planKey: 'P2', source: 'test connection' };
    };
    try {
      const ctx = { ...fx.ctx, caller: { kind: 'user' as const, ip: '127.0.0.1', userId: 'u1', clientId: 'c', scopes: [] } };
      const r = NetworkStatusResponseSchema.parse(await networkStatus({ npi: String(NPI.alice), code: '99213', patientId: 'pat_1' }, ctx, fakeHelpers));
      expect(seen).toEqual([['u1', 'pat_1']]);
      expect(r.plan).toMatchObject({ payerSource: 'linked_coverage', matchTier: 'exact_plan', sponsor: 'Redwood Robotics Inc.' });
      expect(r.matches[0]!.rate).toBe(100);
      // Anonymous callers never reach linked coverage.
      await networkStatus({ npi: String(NPI.alice) }, fx.ctx, fakeHelpers);
      expect(seen).toHaveLength(1);
    } finally {
      network.linkedCoverage = original;
    }
  });
});
