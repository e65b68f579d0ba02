import { afterAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTestSnapshot } from './helpers/snapshot-builder.ts';
import { withGroupSets } from './helpers/rate-sets.ts';
import { SnapshotDb } from '../engine/pricing/adapters/snapshot.duckdb.ts';

const root = mkdtempSync(join(tmpdir(), 'snapdb-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test('reads the snapshot CURRENT points to, and follows a publish', async () => {
  mkdirSync(join(root, 'snapshots'), { recursive: true });
  await buildTestSnapshot(join(root, 'snapshots', 'a'), withGroupSets([{ billing_code_type: 'CPT', code_prefix: '99', billing_code: '99213', negotiation_arrangement: 'ffs', negotiated_type: 'negotiated', negotiated_rate: 100, billing_class: 'professional', group_key: 'g', file_keys: ['f'] }]), { id: 'a' });
  await buildTestSnapshot(join(root, 'snapshots', 'b'), withGroupSets([{ billing_code_type: 'CPT', code_prefix: '99', billing_code: '99213', negotiation_arrangement: 'ffs', negotiated_type: 'negotiated', negotiated_rate: 250, billing_class: 'professional', group_key: 'g', file_keys: ['f'] }]), { id: 'b' });
  const empty = await SnapshotDb.open(root);
  expect(empty.current()).toBeNull();
  writeFileSync(join(root, 'CURRENT'), 'a\n');
  await empty.refresh();
  const q = 'SELECT negotiated_rate AS r FROM rates WHERE billing_code = $code';
  expect(await empty.query(q, { code: '99213' })).toEqual([{ r: 100 }]);
  writeFileSync(join(root, 'CURRENT'), 'b\n');
  expect(await empty.refresh()).toBe(true);
  expect(empty.current()?.id).toBe('b');
  expect(await empty.query(q, { code: '99213' })).toEqual([{ r: 250 }]);
  empty.close();
});

test('the builder refuses a column the contract does not have (a stale fixture), naming it', async () => {
  const row = { billing_code_type: 'CPT', code_prefix: '99', billing_code: '99213', negotiation_arrangement: 'ffs', negotiated_type: 'negotiated', negotiated_rate: 1, billing_class: 'professional', group_key: 'g', file_keys: ['f'] };
  await expect(buildTestSnapshot(join(root, 'snapshots', 'stale'), { rates: [row] })).rejects.toThrow(/table rates has no column group_key/);
});
