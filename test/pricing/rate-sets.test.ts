/**
 * The fixture helper that turns per-group rate rows into the contract's set layout
 * (schemas/pricing-tables.ts RATES + GROUP_SETS): identical prices merge into one row whose set
 * lists every group, keyed as the ingest keys it (groupSetKey).
 */
import { expect, test } from 'vitest';
import { groupSetKey } from '../../ingest/snapshot/keys.ts';
import { withGroupSets } from '../helpers/rate-sets.ts';

const price = (g: string, rate: number, files = ['F1']) => ({ billing_code: '99213', negotiated_rate: rate, service_code: ['11'], file_keys: files, group_key: g });

test('rows identical but for group_key become one rates row naming a multi-group set', () => {
  const { rates, group_sets } = withGroupSets([price('G2', 100), price('G1', 100), price('G1', 120), price('G3', 100, ['F2'])]);
  expect(rates).toHaveLength(3);
  const shared = rates.find((r) => r.negotiated_rate === 100 && (r.file_keys as string[])[0] === 'F1')!;
  expect(shared).not.toHaveProperty('group_key');
  // Sorted distinct keys, so the order the rows came in does not change the key.
  expect(shared.group_set_key).toBe(groupSetKey(['G1', 'G2']));
  expect(shared.group_set_key).toBe(groupSetKey(['G2', 'G1', 'G2']));
  expect(group_sets.filter((s) => s.group_set_key === shared.group_set_key).map((s) => s.group_key).sort()).toEqual(['G1', 'G2']);
  // A group alone in a set still gets its one-member set (G1 at 120 and at 100 in different sets).
  expect(group_sets.filter((s) => s.group_key === 'G1')).toHaveLength(2);
  expect(group_sets).toHaveLength(4);
});

test('rows already in the set layout and given group_sets pass through, without duplicates', () => {
  const own = { billing_code: '70551', negotiated_rate: 600, group_set_key: 'S1' };
  const { rates, group_sets } = withGroupSets([own, price('G1', 100)], [{ group_set_key: 'S1', group_key: 'G3' }, { group_set_key: 'S1', group_key: 'G3' }]);
  expect(rates).toContainEqual(own);
  expect(group_sets).toContainEqual({ group_set_key: 'S1', group_key: 'G3' });
  expect(group_sets).toHaveLength(2);
});
