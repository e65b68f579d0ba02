/**
 * The network adapter's per-snapshot memory structures (H9 speed work) answer exactly what the
 * SQL over the snapshot answers: groups and group files from JS Maps, the rates query with its
 * group_key range, the memoised code existence check and ZIP centroids, and the local
 * distribution read per state from one (code, files) sample.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { groupKeyRange, warmDistributions } from '../../engine/pricing/adapters/network.duckdb.ts';
import { NPI, fixtureTables, openFixture, type Fixture } from './network-fixture.ts';

let fx: Fixture;
beforeAll(async () => {
  fx = await openFixture({
    // A Texas clinician in an Acme PPO group so the PPO's 99213 rows span two states.
    group_members: [...fixtureTables().group_members!, { npi: NPI.txdoc, group_key: 'G9', npi_bucket: NPI.txdoc % 64 }],
  });
});
afterAll(() => fx.close());

test('groupKeyRange: sorted ASCII keys give a BETWEEN prefix; non-ASCII or empty give none', () => {
  expect(groupKeyRange(['G1', 'G2', 'G3'])).toBe("group_key BETWEEN 'G1' AND 'G3' AND ");
  expect(groupKeyRange(["O'Hara"])).toBe("group_key BETWEEN 'O''Hara' AND 'O''Hara' AND ");
  expect(groupKeyRange([])).toBe('');
  expect(groupKeyRange(['G1', 'Gé'])).toBe('');
});

test('groups and groupFiles from the in-memory maps equal the SQL over the snapshot', async () => {
  const net = fx.pricing.network!;
  const keys = ['G3', 'G1', 'NOPE', 'G1'];
  const groups = await net.groups(keys);
  const sql = await fx.db.query<Record<string, unknown>>("SELECT group_key, tin_type, tin_value, business_name, network_names FROM provider_groups WHERE group_key IN ('G1', 'G3') ORDER BY group_key");
  expect([...groups].sort((a, b) => a.group_key.localeCompare(b.group_key))).toEqual(sql);
  const files = await net.groupFiles(keys);
  expect(files.map((f) => `${f.group_key}:${f.file_key}`).sort()).toEqual(['G1:F_HMO', 'G1:F_PPO', 'G3:F_HMO', 'G3:F_PPO']);
});

test('rates with a group_key range return every row of the groups asked, none of the others', async () => {
  const net = fx.pricing.network!;
  const code = { types: ['CPT', 'HCPCS'], code: '99213' };
  const rows = await net.rates(code, ['G2', 'G1', 'G9']);
  expect(rows.map((r) => `${r.group_key}:${r.negotiated_rate}`).sort()).toEqual(['G1:100', 'G1:120', 'G2:150', 'G9:140']);
  expect(await net.codeHasRates(code)).toBe(true);
  expect(await net.codeHasRates(code)).toBe(true);
  expect(await net.codeHasRates({ types: ['CPT'], code: '12345' })).toBe(false);
});

test('local distribution per state from one sample: CA and TX quartiles, all-state quartiles', async () => {
  const net = fx.pricing.network!;
  const code = { types: ['CPT', 'HCPCS'], code: '99213' };
  // PPO 99213 rows: G1 120 (CA), G2 150 (CA), G5-G9 90 100 110 130 140 (CA; G9 also TX).
  const ca = await net.localDistribution(code, ['F_PPO'], 'CA');
  expect(ca).toMatchObject({ n: 7, p50: 120, p25: 105, p75: 135 });
  expect(ca.scope).toMatch(/providers practising in CA/);
  const tx = await net.localDistribution(code, ['F_PPO'], 'TX');
  expect(tx).toMatchObject({ n: 1, p50: 140 });
  const all = await net.localDistribution(code, ['F_PPO'], null);
  expect(all.n).toBe(7);
  // Every file of the snapshot: the file filter is skipped, the rows are the same as listing them.
  const every = await net.localDistribution(code, ['F_PPO', 'F_HMO', 'F_TX', 'F_TX2'], null);
  const none = await net.localDistribution(code, [], null);
  expect(every).toMatchObject({ n: 9, p50: none.p50 });
});

test('ZIP centroids memoised: same answer twice, unknown ZIP null', async () => {
  const p = fx.pricing.providers!;
  const a = await p.zipCentroid('94110');
  expect(a).toMatchObject({ latitude: 37.7486, state: 'CA' });
  expect(await p.zipCentroid('94110')).toEqual(a);
  expect(await p.zipCentroid('00000')).toBeNull();
});

test('warmDistributions precomputes each code once (CPT/HCPCS merged); answers equal on-demand ones', async () => {
  const net = fx.pricing.network!;
  const code = { types: ['CPT', 'HCPCS'], code: '70551' };
  expect(await warmDistributions(fx.db)).toBe(2); // 99213 and 70551
  expect(await net.codeHasRates(code)).toBe(true);
  expect(await net.codeHasRates({ types: ['CPT', 'HCPCS'], code: '99999' })).toBe(false);
  // Payer-scoped to a subset of the files: its own sample (HMO 450 only), not the unscoped one.
  expect(await net.localDistribution(code, ['F_HMO'], null)).toMatchObject({ n: 1, p50: 450, scope: 'same payer' });
  expect(await net.localDistribution(code, [], null)).toMatchObject({ n: 2, p50: 525, scope: 'every payer' });
});
