/**
 * provider_groups.group_key (ingest/snapshot/keys.ts groupKey) is content-derived: the same TIN and
 * the same set of NPIs give the same key, however the file orders or repeats them, and whichever
 * sort path the NPIs take (32-bit fast path, radix-sorted from 256 NPIs, already in order, or wider
 * numbers).
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { groupKey } from '../../ingest/snapshot/keys.ts';

/** The definition, computed independently: sha256 of "type|value|" and the sorted distinct non-zero NPIs as float64 LE. */
function expected(tinType: string, tinValue: string, npis: number[]): { key: string; npis: number[] } {
  const distinct = [...new Set(npis.filter((n) => n !== 0))].sort((a, b) => a - b);
  const bytes = Buffer.alloc(distinct.length * 8);
  distinct.forEach((n, i) => bytes.writeDoubleLE(n, i * 8));
  const key = createHash('sha256').update(`${tinType.toLowerCase()}|${tinValue}|`).update(bytes).digest('hex').slice(0, 32);
  return { key, npis: distinct };
}

describe('groupKey', () => {
  const cases: [string, number[]][] = [
    ['unsorted', [1999999999, 1234567893, 1500000000]],
    ['already in order', [1234567893, 1500000000, 1999999999]],
    ['repeats and the TIN-only marker 0', [0, 1500000000, 1234567893, 1500000000, 0]],
    ['only the marker', [0]],
    ['empty', []],
    ['wider than 32 bits (an 11-digit "NPI")', [12345678901, 1234567893, 4294967296, 4294967295]],
    ['just past 32 bits', [4294967296, 1234567893, 4294967297]],
    ['a fraction', [1234567893.5, 1234567893]],
    ['a long list', Array.from({ length: 5000 }, (_, i) => 1000000000 + ((i * 7919) % 5000) * 3)],
    // 256 and more take the radix sort: every digit varying, repeats and zeros among them
    ['a radix-sorted list over the whole 32-bit range', Array.from({ length: 3000 }, (_, i) => ((i * 2654435761) >>> 0) % 4294967296).concat([0, 0, 7, 7, 4294967295])],
    ['a radix-sorted list whose high digits never vary (passes skipped)', Array.from({ length: 700 }, (_, i) => 1500000000 + ((i * 613) % 2000))],
    ['255 NPIs (the typed array sort)', Array.from({ length: 255 }, (_, i) => 1999999999 - ((i * 37) % 255) * 1000)],
    ['256 NPIs (the radix sort)', Array.from({ length: 256 }, (_, i) => 1999999999 - ((i * 37) % 256) * 1000)],
  ];
  test.each(cases)('%s: the key and the stored NPIs follow the definition', (_what, npis) => {
    const got = groupKey('EIN', '12-3456789', npis);
    const want = expected('EIN', '12-3456789', npis);
    expect(got.key).toBe(want.key);
    expect([...got.npis]).toEqual(want.npis);
  });

  test.each([
    ['a non-ASCII TIN value', 'ein', 'Clínica Ñ 12-3456789'],
    ['a TIN value longer than the room kept before the NPIs (hashed the other way)', 'ein', 'x'.repeat(300)],
    ['a null TIN type and value', null, null],
  ])('%s: the key follows the definition', (_what, type, value) => {
    const npis = [1999999999, 1234567893, 1500000000];
    const got = groupKey(type, value, npis);
    expect(got.key).toBe(expected(type ?? '', value ?? '', npis).key);
    expect([...got.npis]).toEqual([1234567893, 1500000000, 1999999999]);
  });

  test('order and repeats do not change the key; the TIN does', () => {
    const a = groupKey('ein', '1', [1234567893, 1999999999]).key;
    expect(groupKey('ein', '1', [1999999999, 1234567893, 1999999999]).key).toBe(a);
    expect(groupKey('EIN', '1', [1999999999, 1234567893]).key).toBe(a);
    expect(groupKey('ein', '2', [1234567893, 1999999999]).key).not.toBe(a);
    expect(groupKey('npi', '1', [1234567893, 1999999999]).key).not.toBe(a);
  });

  test("lists larger than any before, and larger than the kept scratch array, still sort fully", () => {
    for (const n of [70000, (1 << 20) + 3]) {
      const big = Array.from({ length: n }, (_, i) => 1000000000 + ((i * 104729) % n));
      expect([...groupKey('ein', '1', big).npis]).toEqual(expected('ein', '1', big).npis);
    }
    const small = [1999999999, 1234567893];
    expect(groupKey('ein', '1', small).key).toBe(expected('ein', '1', small).key); // the kept scratch still serves after a larger list
  });
});
