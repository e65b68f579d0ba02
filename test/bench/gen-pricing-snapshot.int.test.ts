/**
 * The pricing benchmark's generator (gen-pricing-snapshot.ts) writes the snapshot contract
 * (schemas/pricing-tables.ts): rates per provider-group set with group_sets members of 1 to 20
 * groups, set keys as the ingest's groupSetKey, rates in (billing_code, set_ref) order per
 * code, and every group of a price's set listed in that price's file. Tiny sizes: seconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { createNetworkPort } from '../../engine/pricing/adapters/network.duckdb.ts';
import { groupSetKey } from '../../ingest/snapshot/keys.ts';
import { buildTestSnapshot } from '../helpers/snapshot-builder.ts';
import { genPricingSnapshot, type GenResult } from './gen-pricing-snapshot.ts';

const root = mkdtempSync(join(tmpdir(), 'gen-pricing-'));
let gen: GenResult;
let db: SnapshotDb;

beforeAll(async () => {
  const codes = ['99213', '99214', '70551', 'G0121'];
  await buildTestSnapshot(join(root, 'ref'), {
    service_catalog: codes.map((code) => ({ code, code_type: code.startsWith('G') ? 'HCPCS' : 'CPT', name: code, category: 'test', sources: ['cms70'] })),
    zip_centroids: [{ zip5: '94110', latitude: 37.75, longitude: -122.42, state: 'CA' }, { zip5: '90012', latitude: 34.06, longitude: -118.24, state: 'CA' }],
  }, { id: 'ref' });
  gen = await genPricingSnapshot({ out: join(root, 'snapshots', 'bench'), reference: join(root, 'ref'), rates: 4000, providers: 2000, tempDir: join(root, 'tmp') });
  db = await SnapshotDb.openDir(gen.dir);
}, 60_000);
afterAll(() => {
  db?.close();
  rmSync(root, { recursive: true, force: true });
});

test('rates name sets of 1 to 20 groups, keyed by groupSetKey; every group is in a set', async () => {
  expect(gen.counts.rates).toBeGreaterThanOrEqual(4000);
  const sets = await db.query<{ k: string; g: string[] }>('SELECT group_set_key AS k, list(group_key ORDER BY group_key) AS g FROM group_sets GROUP BY 1');
  expect(sets.every((s) => groupSetKey(s.g) === s.k)).toBe(true);
  const sizes = sets.map((s) => s.g.length);
  expect(Math.min(...sizes)).toBe(1);
  expect(Math.max(...sizes)).toBe(20);
  const [orphans] = await db.query<{ n: number }>('SELECT count(*) AS n FROM provider_groups ANTI JOIN group_sets USING (group_key)');
  expect(orphans!.n).toBe(0);
  const [unknown] = await db.query<{ n: number }>('SELECT count(*) AS n FROM rates ANTI JOIN (SELECT DISTINCT set_ref FROM group_sets) USING (set_ref)');
  expect(unknown!.n).toBe(0);
  // set_ref numbers the set keys 1..n in key order, one number per key.
  const refs = await db.query<{ ref: number }>('SELECT DISTINCT group_set_key, set_ref AS ref FROM group_sets ORDER BY group_set_key');
  expect(refs.map((r) => r.ref)).toEqual(refs.map((_, i) => i + 1));
});

test('a price\'s file lists every group of its set (group_files)', async () => {
  const [bad] = await db.query<{ n: number }>(`SELECT count(*) AS n FROM (SELECT DISTINCT set_ref, unnest(file_keys) AS file_key FROM rates) r
    JOIN group_sets gs USING (set_ref) ANTI JOIN group_files gf ON gf.group_key = gs.group_key AND gf.file_key = r.file_key`);
  expect(bad!.n).toBe(0);
});

test('the engine reads the generated rates through the sets: one NPI, one code', async () => {
  const net = createNetworkPort(db);
  const groups = [...new Set((await net.groupsForNpis([1_000_000_000])).map((g) => g.group_key))];
  expect(groups.length).toBeGreaterThan(0);
  const code = { types: ['CPT', 'HCPCS'], code: '99213' };
  const rows = await net.rates(code, groups);
  const [sql] = await db.query<{ n: number }>(`SELECT count(*) AS n FROM rates r JOIN group_sets gs USING (set_ref)
    WHERE r.billing_code = '99213' AND gs.group_key IN (${groups.map((g) => `'${g}'`).join(', ')})`);
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.length).toBe(sql!.n);
});
