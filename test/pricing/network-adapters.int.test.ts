/**
 * The network adapter's per-snapshot memory structures (H9 speed work) answer exactly what the
 * SQL over the snapshot answers: groups and group files from JS Maps, the rates read through
 * provider-group sets (group_sets, then the code's rows of those sets, expanded per asked group),
 * the memoised code existence check and ZIP centroids, and the local distribution read per state
 * from one (code, files) sample, where a price published for a set of groups counts once.
 */
import { cpSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createNetworkPort, groupKeyRange, warmDistributions } from '../../engine/pricing/adapters/network.duckdb.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { GROUP_SETS, RATES } from '../../schemas/pricing-tables.ts';
import { tableDir } from '../../schemas/snapshot-layout.ts';
import { setsOfGroups } from '../../engine/pricing/adapters/rates.duckdb.ts';
import { groupSetKey } from '../../ingest/snapshot/keys.ts';
import { NPI, fixtureTables, openFixture, type Fixture } from './network-fixture.ts';

let fx: Fixture;
beforeAll(async () => {
  fx = await openFixture({
    // A Texas clinician in an Acme PPO group so the PPO's 99213 rows span two states.
    group_members: [...fixtureTables().group_members!, { npi: NPI.txdoc, group_key: 'G9', npi_bucket: NPI.txdoc % 64 }],
    // One 99214 price for the set {G4 (TX), G10 (CA)}: a set whose groups practise in two states.
    // Written under the older 3-character code_prefix (the other rows use codePrefix: 2), as a
    // snapshot written before that change has it: lookups find either length.
    rates: [...fixtureTables().rates!, ...['G4', 'G10'].map((g) => ({
      billing_code_type: 'CPT', code_prefix: '992', billing_code: '99214', negotiation_arrangement: 'ffs', negotiated_type: 'negotiated',
      negotiated_rate: 200, billing_class: 'professional', service_code: ['11'], group_key: g, file_keys: ['F_TX'],
    }))],
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

test('rates through group sets return every row of the groups asked, none of the others', async () => {
  const net = fx.pricing.network!;
  const code = { types: ['CPT', 'HCPCS'], code: '99213' };
  const rows = await net.rates(code, ['G2', 'G1', 'G9']);
  expect(rows.map((r) => `${r.group_key}:${r.negotiated_rate}`).sort()).toEqual(['G1:100', 'G1:120', 'G2:150', 'G9:140']);
  expect(await net.codeHasRates(code)).toBe(true);
  expect(await net.codeHasRates(code)).toBe(true);
  expect(await net.codeHasRates({ types: ['CPT'], code: '12345' })).toBe(false);
});

test('a price for a multi-group set is one rates row; rates() expands it to each asked group of the set, only those', async () => {
  const net = fx.pricing.network!;
  const code = { types: ['CPT', 'HCPCS'], code: '99213' };
  // The HMO price of 100 is stored once, for the set {G1, G10}.
  const stored = await fx.db.query<{ set_ref: number }>("SELECT set_ref FROM rates WHERE billing_code = '99213' AND negotiated_rate = 100 AND file_keys = ['F_HMO']");
  expect(stored).toHaveLength(1);
  const members = await fx.db.query<{ group_key: string }>(`SELECT group_key FROM group_sets WHERE set_ref = ${stored[0]!.set_ref} ORDER BY group_key`);
  expect(members.map((m) => m.group_key)).toEqual(['G1', 'G10']);
  const both = await net.rates(code, ['G10', 'G1']);
  expect(both.map((r) => `${r.group_key}:${r.negotiated_rate}:${r.file_keys.join(',')}`).sort()).toEqual(['G10:100:F_HMO', 'G1:100:F_HMO', 'G1:120:F_PPO']);
  const one = await net.rates(code, ['G10']);
  expect(one).toEqual([expect.objectContaining({ billing_code: '99213', group_key: 'G10', negotiated_rate: 100, file_keys: ['F_HMO'], service_code: ['11'] })]);
  expect(await net.rates(code, ['NOPE'])).toEqual([]);
  expect(await net.rates(code, [])).toEqual([]);
  expect(await net.rates({ types: ['CPT'], code: '12345' }, ['G1'])).toEqual([]);
});

test('set lookups: the in-memory index and the Parquet path (forced by a 0-row limit) give the same sets', async () => {
  const keys = ['G10', 'G1', 'G4', 'NOPE', 'G1'];
  const norm = (m: Map<string, string[]>): string[] => [...m].map(([k, v]) => `${k}:${[...v].sort().join(',')}`).sort();
  const mem = await setsOfGroups(fx.db, keys);
  expect(norm(mem)).toEqual(norm(await setsOfGroups(fx.db, keys, 0)));
  // Sets are named by their set_ref (as text); the set of some groups is the set_ref of their key.
  const ref = async (groups: string[]): Promise<string> => String((await fx.db.query<{ r: number }>(
    'SELECT DISTINCT set_ref AS r FROM group_sets WHERE group_set_key = $k', { k: groupSetKey(groups) }))[0]!.r);
  // {G1} (PPO 120), {G1, G10} (HMO 100), {G4} (TX 95), {G4, G10} (99214 at 200): each set with the asked groups it holds.
  expect(norm(mem)).toEqual([
    `${await ref(['G1'])}:G1`, `${await ref(['G1', 'G10'])}:G1,G10`, `${await ref(['G4'])}:G4`, `${await ref(['G4', 'G10'])}:G10,G4`,
  ].sort());
  expect((await setsOfGroups(fx.db, ['G10'])).get(await ref(['G1', 'G10']))).toEqual(['G10']);
  expect((await setsOfGroups(fx.db, [])).size).toBe(0);
});

test('distribution over sets: a shared price counts once overall and once in each state of its groups', async () => {
  const net = fx.pricing.network!;
  // HMO 99213: one price (100) for {G1, G10}, both in CA: n 1, not one per group.
  expect(await net.localDistribution({ types: ['CPT', 'HCPCS'], code: '99213' }, ['F_HMO'], 'CA')).toMatchObject({ n: 1, p50: 100 });
  // 99214 at 200 for {G4 (TX), G10 (CA)}: once overall, once in TX and once in CA, nowhere else.
  const code = { types: ['CPT', 'HCPCS'], code: '99214' };
  expect(await net.localDistribution(code, ['F_TX'], null)).toMatchObject({ n: 1, p50: 200 });
  expect(await net.localDistribution(code, ['F_TX'], 'TX')).toMatchObject({ n: 1, p50: 200 });
  expect(await net.localDistribution(code, ['F_TX'], 'CA')).toMatchObject({ n: 1, p50: 200 });
  expect(await net.localDistribution(code, ['F_TX'], 'NV')).toMatchObject({ n: 0, p50: null });
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
  expect(await warmDistributions(fx.db)).toBe(3); // 99213, 70551 and 99214
  expect(await net.codeHasRates(code)).toBe(true);
  expect(await net.codeHasRates({ types: ['CPT', 'HCPCS'], code: '99999' })).toBe(false);
  // Payer-scoped to a subset of the files: its own sample (HMO 450 only), not the unscoped one.
  expect(await net.localDistribution(code, ['F_HMO'], null)).toMatchObject({ n: 1, p50: 450, scope: 'same payer' });
  expect(await net.localDistribution(code, [], null)).toMatchObject({ n: 2, p50: 525, scope: 'every payer' });
});

test('a snapshot whose rates name sets by group_set_key (written before set_ref) answers alike', async () => {
  // The fixture's snapshot, rewritten as that layout: rates carry the set's key, group_sets no set_ref.
  const dir = mkdtempSync(join(tmpdir(), 'netstat-setkey-'));
  const snap = join(dir, 'snap');
  cpSync(join(fx.dir, 'snap'), snap, { recursive: true });
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const sets = join(tableDir(snap, GROUP_SETS), 'data_0.parquet');
  const keys = `(SELECT DISTINCT set_ref, group_set_key FROM read_parquet('${sets}'))`;
  for (const f of readdirSync(tableDir(snap, RATES), { recursive: true }).map(String).filter((f) => f.endsWith('.parquet'))) {
    const path = join(tableDir(snap, RATES), f);
    await con.run(`COPY (SELECT r.* EXCLUDE (set_ref), k.group_set_key FROM read_parquet('${path}') r JOIN ${keys} k USING (set_ref)) TO '${path}.new' (FORMAT parquet)`);
    renameSync(`${path}.new`, path);
  }
  await con.run(`COPY (SELECT * EXCLUDE (set_ref) FROM read_parquet('${sets}')) TO '${sets}.new' (FORMAT parquet)`);
  renameSync(`${sets}.new`, sets);
  con.closeSync();
  inst.closeSync();
  const old = await SnapshotDb.openDir(snap);
  try {
    expect(old.setColumn()).toBe('group_set_key');
    expect(fx.db.setColumn()).toBe('set_ref');
    const net = createNetworkPort(old);
    const now = fx.pricing.network!;
    const groups = ['G10', 'G1', 'G2', 'G4', 'G9', 'NOPE'];
    const rows = (rs: { group_key: string; negotiated_rate: number; file_keys: string[] }[]): string[] =>
      rs.map((r) => `${r.group_key}:${r.negotiated_rate}:${r.file_keys.join(',')}`).sort();
    for (const code of ['99213', '99214', '70551']) {
      const c = { types: ['CPT', 'HCPCS'], code };
      const got = await net.rates(c, groups);
      if (code !== '70551') expect(got.length, code).toBeGreaterThan(0); // 70551: none of these groups
      expect(rows(got), code).toEqual(rows(await now.rates(c, groups)));
      for (const state of [null, 'CA', 'TX']) {
        expect(await net.localDistribution(c, ['F_PPO', 'F_TX'], state), `${code} ${state}`).toEqual(await now.localDistribution(c, ['F_PPO', 'F_TX'], state));
      }
    }
    expect([...(await setsOfGroups(old, ['G10'])).keys()]).toEqual([groupSetKey(['G1', 'G10']), groupSetKey(['G4', 'G10'])].sort());
  } finally {
    old.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
