/**
 * A snapshot written before the provider-group-set layout (rates rows carry group_key, no
 * group_set_key, no group_sets rows) may still be CURRENT after an upgrade until the next ingest.
 * The network adapter must not fail on it (no 5xx from a binder error): rates for groups are
 * empty (no set names a group), the code still counts as having rates, and the typical rate is
 * the overall distribution with no per-state values.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { GROUP_MEMBERS, PRICE_TERMS, PROVIDER_GROUPS, RATES } from '../../schemas/pricing-tables.ts';
import { MANIFEST_FILE, tableDir, type SnapshotManifest } from '../../schemas/snapshot-layout.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { createNetworkPort, warmDistributions } from '../../engine/pricing/adapters/network.duckdb.ts';
import { buildTestSnapshot } from '../helpers/snapshot-builder.ts';
import { mergeSnapshots } from '../../ingest/snapshot/merge.ts';

const root = mkdtempSync(join(tmpdir(), 'netstat-legacy-'));
let db: SnapshotDb;

beforeAll(async () => {
  const dir = join(root, 'snap');
  // The manifest counts one rates row; the Parquet is then replaced by the old layout's file.
  await buildTestSnapshot(dir, {
    rates: [{ billing_code_type: 'CPT', code_prefix: '992', billing_code: '99213', negotiation_arrangement: 'ffs', negotiated_type: 'negotiated', negotiated_rate: 1, billing_class: 'professional', group_set_key: 'x', file_keys: ['F'] }],
    provider_groups: [{ group_key: 'G1', tin_type: 'ein', tin_value: '111111111', npis: [1000000001], network_names: [] }],
    group_members: [{ npi: 1000000001, group_key: 'G1', npi_bucket: 1000000001 % 64 }],
  }, { id: 'legacy' });
  const part = join(tableDir(dir, RATES), 'billing_code_type=CPT', 'code_prefix=992');
  rmSync(part, { recursive: true, force: true });
  // Snapshots of that time had no price_terms either (every term was on the rates row).
  rmSync(tableDir(dir, PRICE_TERMS), { recursive: true, force: true });
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as SnapshotManifest;
  delete manifest.tables[PRICE_TERMS.name];
  writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  await con.run(`CREATE TABLE old AS SELECT 'CPT' AS billing_code_type, '992' AS code_prefix, '99213' AS billing_code, 'ffs' AS negotiation_arrangement, 'negotiated' AS negotiated_type,
    r::DOUBLE AS negotiated_rate, 'professional' AS billing_class, ['11'] AS service_code, 'G1' AS group_key, ['F'] AS file_keys FROM (VALUES (100), (200), (300)) v(r)`);
  await con.run(`COPY old TO '${tableDir(dir, RATES)}' (FORMAT parquet, PARTITION_BY (billing_code_type, code_prefix), OVERWRITE_OR_IGNORE)`);
  // group_members of that time carried the group_key (no group_ref), provider_groups had no group_ref.
  rmSync(tableDir(dir, GROUP_MEMBERS), { recursive: true, force: true });
  await con.run(`COPY (SELECT 1000000001::BIGINT AS npi, 'G1' AS group_key, (1000000001 % 64)::SMALLINT AS npi_bucket)
    TO '${tableDir(dir, GROUP_MEMBERS)}' (FORMAT parquet, PARTITION_BY (npi_bucket), OVERWRITE_OR_IGNORE)`);
  const groups = join(tableDir(dir, PROVIDER_GROUPS), 'data_0.parquet');
  await con.run(`COPY (SELECT * EXCLUDE (group_ref) FROM read_parquet('${groups}')) TO '${groups}.new' (FORMAT parquet)`);
  renameSync(`${groups}.new`, groups);
  con.closeSync();
  inst.closeSync();
  db = await SnapshotDb.openDir(dir);
});
afterAll(() => {
  db?.close();
  rmSync(root, { recursive: true, force: true });
});

test('old-layout rates and members: members found by NPI, no rates per group, no error; the code has rates; overall distribution only', async () => {
  const net = createNetworkPort(db);
  const code = { types: ['CPT', 'HCPCS'], code: '99213' };
  expect(await net.groupsForNpis([1000000001])).toEqual([{ npi: 1000000001, group_key: 'G1' }]);
  expect(await net.groups(['G1'])).toMatchObject([{ group_key: 'G1', tin_value: '111111111' }]);
  expect(await net.rates(code, ['G1'])).toEqual([]);
  expect(await net.codeHasRates(code)).toBe(true);
  expect(await warmDistributions(db)).toBe(1);
  expect(await net.localDistribution(code, [], null)).toMatchObject({ n: 3, p50: 200 });
  expect(await net.localDistribution(code, [], 'CA')).toMatchObject({ n: 0, p50: null });
});

test('snapshot merge refuses an old-layout snapshot, naming what is old (its rows cannot be renumbered)', async () => {
  const dir = db.current()!.dir;
  await expect(mergeSnapshots([dir, dir], join(root, 'merged'))).rejects.toThrow(/earlier layout \(rates without terms_id, rates without set_ref, group_members without group_ref\); re-ingest/);
});
