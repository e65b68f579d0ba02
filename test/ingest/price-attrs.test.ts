import { afterAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PriceDescriptions, descriptionHash, sameDescription } from '../../ingest/snapshot/price-attrs.ts';
import { TicStager } from '../../ingest/snapshot/tic-stager.ts';
import { RowRecorder } from '../../ingest/snapshot/stage-rows.ts';
import { STAGED_NUMERIC, STAGE_TABLES } from '../../ingest/snapshot/staged-layout.ts';
import { readNumericParquet } from '../../ingest/snapshot/numeric-parquet.ts';
import type { PriceRecord, RateRecord } from '../../ingest/tic/records.ts';

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

const root = mkdtempSync(join(tmpdir(), 'stager-keys-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

class RecordingStager extends TicStager {
  readonly recorders = new Map(Object.keys(STAGE_TABLES).map((t) => [t, new RowRecorder()]));
  constructor(dir: string) {
    super({ src: join(dir, 'f.json'), dir }, (name) => this.recorders.get(name)!);
  }
  /** The staged prices as [attr id, rate], and each attr id's description as staged. */
  async staged(): Promise<{ prices: [number, number][]; attrs: Map<number, unknown[]> }> {
    await this.prices.close();
    this.groupNpis.close();
    const prices: [number, number][] = [];
    for (const g of readNumericParquet(this.prices.path, STAGED_NUMERIC.prices)) {
      const [, , attr, rate] = g.cols as [Int32Array, Int32Array, Int32Array, Float64Array];
      for (let i = 0; i < g.rows; i++) prices.push([attr[i]!, rate[i]!]);
    }
    const values = this.recorders.get('attrs')!.take() ?? [];
    const attrs = new Map<number, unknown[]>();
    for (let i = 0; i < values.length; i += 8) attrs.set(values[i] as number, values.slice(i + 1, i + 8));
    return { prices, attrs };
  }
  /** The staged prices' set ids, and each set's staged provider_references list and inline group keys. */
  async stagedSets(): Promise<{ sets: number[]; refs: Map<number, string>; inline: Map<number, string[]> }> {
    await this.prices.close();
    this.groupNpis.close();
    const sets: number[] = [];
    for (const g of readNumericParquet(this.prices.path, STAGED_NUMERIC.prices)) {
      const set = g.cols[1] as Int32Array;
      for (let i = 0; i < g.rows; i++) sets.push(set[i]!);
    }
    const refs = new Map<number, string>();
    const lists = this.recorders.get('set_ref_lists')!.take() ?? [];
    for (let i = 0; i < lists.length; i += 2) {
      expect(refs.has(lists[i] as number)).toBe(false);
      refs.set(lists[i] as number, lists[i + 1] as string);
    }
    const inline = new Map<number, string[]>();
    const rows = this.recorders.get('set_inline')!.take() ?? [];
    for (let i = 0; i < rows.length; i += 2) inline.set(rows[i] as number, [...(inline.get(rows[i] as number) ?? []), rows[i + 1] as string]);
    return { sets, refs, inline };
  }
}

describe('TicStager: the front-end\'s description keys (RateHints.descriptionKeys)', () => {
  const rate = (prices: PriceRecord[]): RateRecord => ({
    billingCodeType: 'CPT', billingCode: '99213', billingCodeTypeVersion: '2024', name: 'x', negotiationArrangement: 'ffs', refIds: ['1'], inlineGroups: [], prices,
  });
  const described = (sc: string, negotiatedRate: number) => price({ serviceCode: [sc], negotiatedRate });

  test('a price whose key was seen gets that description\'s id without a lookup; keys sharing a slot, no key, and descriptions repeated under other keys stay right', async () => {
    const dir = join(root, 'a');
    mkdirSync(dir);
    const st = new RecordingStager(dir);
    const A = (r: number) => described('11', r), B = (r: number) => described('22', r), C = (r: number) => described('33', r);
    const K = 7, K2 = 7 + 65536; // one slot of the stager's table, two descriptions
    const hashes = (ps: PriceRecord[]) => ps.map(descriptionHash);
    const feed = (ps: PriceRecord[], keys: number[]) => st.rate(rate(ps), { descriptionHashes: hashes(ps), descriptionKeys: keys });
    feed([A(1), B(2)], [K, 0]);
    feed([B(3), A(4), C(5)], [K2, K, 0]); // B under a key now; K2 takes K's slot
    feed([A(6), B(7), C(8)], [K, K2, 9]); // K again after K2 took its slot
    feed([C(9)], [9]);
    st.rate(rate([A(10), C(11)])); // no hints at all
    const { prices, attrs } = await st.staged();
    expect(prices.map(([, r]) => r)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const sc = (id: number) => attrs.get(id)?.[2];
    expect(prices.map(([id]) => sc(id))).toEqual(['11', '22', '22', '11', '33', '11', '22', '33', '33', '11', '33']);
    expect(attrs.size).toBe(3); // each description staged once
  });
});

describe('TicStager: the front-end\'s provider_references keys (RateHints.refsKey)', () => {
  test('a rate whose list key was seen gets that set without a lookup; keys sharing a slot, no key, and inline groups stay right', async () => {
    const dir = join(root, 'refs');
    mkdirSync(dir);
    const st = new RecordingStager(dir);
    const K = 5, K2 = 5 + (1 << 14); // one slot of the stager's table, two lists
    const group = { tinType: 'ein', tinValue: '12-3456789', businessName: null, npis: [1234567893], networkNames: [] };
    const feed = (refIds: string[], refsKey: number, inlineGroups: typeof group[] = []) =>
      st.rate({ billingCodeType: 'CPT', billingCode: '99213', billingCodeTypeVersion: '2024', name: 'x', negotiationArrangement: 'ffs', refIds, inlineGroups, prices: [price()] },
        { descriptionHashes: [descriptionHash(price())], refsKey });
    feed(['1', '2'], K);
    feed(['1', '2'], K);
    feed(['1', '2'], K, [group]); // the same list and key, and a group of its own: another set
    feed(['1', '2'], K);
    feed(['3'], K2); // takes K's slot
    feed(['1', '2'], K); // K again after K2 took its slot
    feed(['3'], K2);
    feed(['1', '2'], 0); // no key
    feed(['4'], 9);
    feed(['4'], 9);
    st.rate({ billingCodeType: 'CPT', billingCode: '99213', billingCodeTypeVersion: '2024', name: 'x', negotiationArrangement: 'ffs', refIds: ['3'], inlineGroups: [], prices: [price()] }); // no hints at all
    const { sets, refs, inline } = await st.stagedSets();
    const named = sets.map((id) => `${refs.get(id) ?? ''}${inline.has(id) ? '+inline' : ''}`);
    expect(named).toEqual(['1\u001f2', '1\u001f2', '1\u001f2+inline', '1\u001f2', '3', '1\u001f2', '3', '1\u001f2', '4', '4', '3']);
    expect(refs.size).toBe(4); // each set staged once
    expect(new Set(sets).size).toBe(4);
  });
});
