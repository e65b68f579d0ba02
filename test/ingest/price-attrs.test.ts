import { describe, expect, test } from 'vitest';
import { PriceDescriptions, descriptionHash, sameDescription } from '../../ingest/snapshot/price-attrs.ts';
import type { PriceRecord } from '../../ingest/tic/records.ts';

const price = (o: Partial<PriceRecord> = {}): PriceRecord => ({
  negotiatedType: 'negotiated', negotiatedRate: 100, expirationDate: '9999-12-31', serviceCode: ['11', '22'], billingClass: 'professional',
  setting: null, billingCodeModifier: null, additionalInformation: null, ...o,
});

describe('price descriptions dictionary', () => {
  test('the rate is not part of a description; every other field is', () => {
    expect(sameDescription(price(), price({ negotiatedRate: 5 }))).toBe(true);
    for (const o of [
      { negotiatedType: 'derived' }, { expirationDate: null }, { serviceCode: null }, { serviceCode: [] }, { serviceCode: ['11'] },
      { serviceCode: ['1', '122'] }, { billingClass: 'institutional' }, { setting: 'outpatient' }, { billingCodeModifier: [] },
      { billingCodeModifier: ['26'] }, { additionalInformation: '' }, { additionalInformation: 'x' },
    ] satisfies Partial<PriceRecord>[]) {
      expect(sameDescription(price(), price(o)), JSON.stringify(o)).toBe(false);
    }
  });

  test('null and empty lists, and split strings, hash apart', () => {
    expect(descriptionHash(price({ serviceCode: null }))).not.toBe(descriptionHash(price({ serviceCode: [] })));
    expect(descriptionHash(price({ serviceCode: ['1', '122'] }))).not.toBe(descriptionHash(price({ serviceCode: ['11', '22'] })));
  });

  test('ids: equal descriptions share one, distinct ones never do, a full dictionary starts over', () => {
    const d = new PriceDescriptions(3);
    const a = d.idOf(price());
    expect(a).toBeLessThan(0); // new
    expect(d.idOf(price({ negotiatedRate: 7 }))).toBe(-a);
    const b = d.idOf(price({ billingClass: 'institutional' }));
    expect(b).toBeLessThan(0);
    expect(-b).not.toBe(-a);
    // Distinct descriptions never share an id; past the cap of 3 the dictionary starts over.
    const ids = new Set([-a, -b]);
    for (let i = 0; i < 50; i++) {
      const x = d.idOf(price({ additionalInformation: `note ${i}` }));
      expect(x).toBeLessThan(0);
      expect(ids.has(-x)).toBe(false);
      ids.add(-x);
    }
    expect(d.idOf(price())).toBeLessThan(0); // forgotten after the restart: staged again under a new id
  });

  test('long descriptions are bounded by characters, not only by count', () => {
    const d = new PriceDescriptions(1000, 10_000);
    const long = (i: number): PriceRecord => price({ additionalInformation: `${i}`.padEnd(4000, 'x') });
    expect(d.idOf(long(1))).toBeLessThan(0);
    expect(d.idOf(long(1))).toBeGreaterThan(0); // kept
    d.idOf(long(2)); d.idOf(long(3)); d.idOf(long(4)); // past 10,000 characters: the dictionary starts over
    expect(d.idOf(long(1))).toBeLessThan(0);
  });
  test('a front-end hash hint only buckets: one hint for two descriptions still gives two ids', () => {
    const d = new PriceDescriptions(1000);
    const a = d.idOf(price(), 42);
    const b = d.idOf(price({ billingClass: 'institutional' }), 42);
    expect(a).toBeLessThan(0);
    expect(b).toBeLessThan(0);
    expect(b).not.toBe(a);
    expect(d.idOf(price(), 42)).toBe(-a);
    expect(d.idOf(price({ billingClass: 'institutional' }), 42)).toBe(-b);
    expect(d.idOf(price(), 7)).toBeLessThan(0); // another hint for the same description: a new id (harmless, finalize de-duplicates)
  });

  test('under one hint, every field and list shape tells descriptions apart exactly as sameDescription does', () => {
    const variants: Partial<PriceRecord>[] = [
      {}, { serviceCode: null }, { serviceCode: [] }, { serviceCode: ['11'] }, { serviceCode: ['11', '22'] }, { serviceCode: ['1122'] },
      { billingCodeModifier: null }, { billingCodeModifier: [] }, { billingCodeModifier: ['11'] },
      { serviceCode: null, billingCodeModifier: ['11'] }, { serviceCode: ['11'], billingCodeModifier: null },
      { setting: 'inpatient' }, { setting: null }, { expirationDate: null }, { additionalInformation: 'x' }, { negotiatedType: 'fee schedule' },
    ];
    const d = new PriceDescriptions(1000);
    const ids = variants.map((v) => d.idOf(price(v), 42));
    variants.forEach((v) => {
      const again = d.idOf(price({ ...v, negotiatedRate: 1 }), 42);
      const first = variants.findIndex((w) => sameDescription(price(w), price(v)));
      expect(again, JSON.stringify(v)).toBe(-ids[first]!);
    });
  });
});
