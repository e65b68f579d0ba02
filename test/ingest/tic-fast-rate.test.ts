/**
 * The fast parser's shortcut for canonical negotiated_rates entries (ingest/tic/fast-rate.ts): it
 * takes canonical entries, gives up (null) on anything the general path would change or warn
 * about, and what it reads equals what JSON.parse + the assembler make (tic-differential checks
 * whole documents; this pins the shortcut itself).
 */
import { describe, expect, it } from 'vitest';
import { forgetKnownPrices, forgetKnownRefs, prepareRate, prepareReference, sameBytes, type PreparedRate } from '../../ingest/tic/fast-rate.ts';
import { FAST_RATE_CANONICAL } from '../fixtures/tic/cases.ts';
import { parseBytes, parseOk } from '../fixtures/tic/recorder.ts';
import type { TicParseError } from '../../ingest/tic/records.ts';

const bytes = (s: string): Uint8Array => Buffer.from(s);
const entry = (price: string, refs = '[1]') => `{"provider_references":${refs},"negotiated_prices":[{"negotiated_type":"negotiated","expiration_date":"2025-12-31","billing_class":"professional",${price}}]}`;
const doc = (e: string) => `{"version":"1","reporting_entity_name":"x","last_updated_on":"2024-01-01","in_network":[{"negotiation_arrangement":"ffs","name":"n","billing_code_type":"CPT","billing_code_type_version":"1","billing_code":"99213","negotiated_rates":[${e}]}]}`;

describe('prepareRate', () => {
  it('reads a canonical entry exactly as the general path does', async () => {
    const p = prepareRate(bytes(FAST_RATE_CANONICAL), 0, Buffer.byteLength(FAST_RATE_CANONICAL));
    expect(p).not.toBeNull();
    expect(p!.refIds).toEqual(['1', '2.50', '0.1', '690.64462', '123456789012345']); // as written
    expect(p!.prices.map((x) => x.negotiatedRate)).toEqual([1.1, 100, 123456789012.345, 0.0100001, 0.123456789012345, 98765.4321, 5]);
    const viaReference = await parseOk(doc(FAST_RATE_CANONICAL), { parser: 'reference' });
    expect(p!.prices).toEqual(viaReference.rates[0]!.prices);
    expect(p!.refIds).toEqual(viaReference.rates[0]!.refIds);
  });

  it('keeps each provider id as written: plain integers of every width, fractions, exponents, negatives', async () => {
    // 65543 and 7 share a slot of the ids' texts kept by value (fast-rate.ts idText).
    const ids = ['0', '7', '65543', '7', '123456789', '1234567890', '99999999999', '2.50', '1e3', '1E+2', '-5', '-0', '123456789012345678901234567890'];
    const e = entry('"negotiated_rate":12', `[${ids.join(', ')}]`);
    const p = prepareRate(bytes(e), 0, Buffer.byteLength(e));
    expect(p).not.toBeNull();
    expect(p!.refIds).toEqual(ids);
    const viaReference = await parseOk(doc(e), { parser: 'reference' });
    expect(p!.refIds).toEqual(viaReference.rates[0]!.refIds);
  });

  it('hints a description hash per price: equal for the same description bytes, apart for another description', () => {
    const e = `{"provider_references":[1],"negotiated_prices":[${[
      '{"negotiated_type":"negotiated","negotiated_rate":10,"expiration_date":"2025-12-31","billing_class":"professional","service_code":["11"]}',
      '{"negotiated_type":"negotiated","negotiated_rate":99.5,"expiration_date":"2025-12-31","billing_class":"professional","service_code":["11"]}',
      '{"negotiated_type":"negotiated","negotiated_rate":10,"expiration_date":"2025-12-31","billing_class":"professional","service_code":["12"]}',
      '{"negotiated_type":"negotiated","negotiated_rate":10,"expiration_date":"2025-12-31","billing_class":"institutional","service_code":["11"]}',
    ].join(',')}]}`;
    const p = prepareRate(bytes(e), 0, Buffer.byteLength(e))!;
    expect(p.descriptionHashes).toHaveLength(4);
    const [a, b, c, d] = p.descriptionHashes;
    expect(a).toBe(b); // only the rate differs
    expect(new Set([a, c, d]).size).toBe(3);
  });

  it('reads a repeated expiration date from its bytes: the same dates and description hashes as a first reading; another date, or one invalid, is read again', async () => {
    const price = (d: string, rate = 10) => `{"negotiated_type":"negotiated","negotiated_rate":${rate},"expiration_date":"${d}","billing_class":"professional"}`;
    const e = (...ds: string[]) => `{"provider_references":[1],"negotiated_prices":[${ds.map((d, i) => price(d, 10 + i)).join(',')}]}`;
    const read = (s: string) => prepareRate(bytes(s), 0, Buffer.byteLength(s));
    // Each date first alone (whatever was read before), then repeated and alternating.
    const alone = ['2025-12-31', '9999-12-31', '2026-01-01'].map((d) => read(e(d))!);
    const many = read(e('2025-12-31', '2025-12-31', '9999-12-31', '9999-12-31', '2025-12-31', '2026-01-01', '2026-01-01'))!;
    expect(many.prices.map((p) => p.expirationDate)).toEqual(['2025-12-31', '2025-12-31', '9999-12-31', '9999-12-31', '2025-12-31', '2026-01-01', '2026-01-01']);
    const hashOf = Object.fromEntries(alone.map((p) => [p.prices[0]!.expirationDate!, p.descriptionHashes[0]]));
    expect(many.descriptionHashes).toEqual(many.prices.map((p) => hashOf[p.expirationDate!]));
    expect(many.prices).toEqual((await parseOk(doc(e('2025-12-31', '2025-12-31', '9999-12-31', '9999-12-31', '2025-12-31', '2026-01-01', '2026-01-01')), { parser: 'reference' })).rates[0]!.prices);
    // Right after a valid date: the same bytes longer, shorter, or not a date the general path keeps.
    for (const bad of ['2025-12-31 ', '2025-12-3', '2025-13-31', '2025-12-31T00:00:00']) {
      expect(read(e('2025-12-31', bad)), bad).toBeNull();
      expect(read(e('2025-12-31'))).not.toBeNull();
    }
  });

  it('reads service codes in place as str() would: the same codes, strings and description hash', async () => {
    const compact = entry('"negotiated_rate":7,"service_code":["11","2A","~}"]');
    const spaced = entry('"negotiated_rate":7,"service_code":[ "11" , "2A",\n"~}" ]');
    const a = prepareRate(bytes(compact), 0, Buffer.byteLength(compact))!;
    const b = prepareRate(bytes(spaced), 0, Buffer.byteLength(spaced))!;
    expect(a.prices[0]!.serviceCode).toEqual(['11', '2A', '~}']);
    expect(b.prices).toEqual(a.prices);
    expect(b.descriptionHashes).toEqual(a.descriptionHashes);
    expect(a.prices).toEqual((await parseOk(doc(compact), { parser: 'reference' })).rates[0]!.prices);
  });

  it.each([
    ['an exponent', '"negotiated_rate":1e2'],
    ['a place of service with a space', '"negotiated_rate":7,"service_code":["1 "]'],
    ['a place of service with an escape', '"negotiated_rate":7,"service_code":["\\1"]'],
    ['an empty place of service', '"negotiated_rate":7,"service_code":["","11"]'],
    ['more than 15 digits', '"negotiated_rate":0.30000000000000004'],
    ['a penny rate (warns)', '"negotiated_rate":0.01'],
    ['a string rate (warns)', '"negotiated_rate":"7.5"'],
    ['an escape', '"negotiated_rate":7,"additional_information":"caf\\u00e9"'],
    ['non-ASCII', '"negotiated_rate":7,"additional_information":"café"'],
    ['a value to trim', '"negotiated_rate":7,"billing_code_modifier":[" 26"]'],
    ['a duplicate key', '"negotiated_rate":7,"negotiated_rate":8'],
    ['an impossible date', '"negotiated_rate":7,"expiration_date":"2025-02-30"'],
    ['a null', '"negotiated_rate":7,"setting":null'],
    ['an unknown key', '"negotiated_rate":7,"tier":1'],
    ['a key one letter longer than a known one', '"negotiated_rate":7,"settings":"inpatient"'],
    ['a key one letter short of a known one', '"negotiated_rate":7,"billing_cod":"x"'],
    ['a key that shares a known one\'s first letters', '"negotiated_rate":7,"negotiated_rat":7'],
    ['a three-character place of service', '"negotiated_rate":7,"service_code":["111"]'],
  ])('leaves %s to the general path', (_what, price) => {
    const e = entry(price);
    expect(prepareRate(bytes(e), 0, Buffer.byteLength(e))).toBeNull();
  });

  it('takes the deviations real files are full of (POS "1", [] arrays) with the general path\'s warnings', async () => {
    const e = entry('"negotiated_rate":7,"billing_code_modifier":[],"service_code":["1","11","9"],"additional_information":""')
      + ',' + entry('"negotiated_rate":8,"service_code":[],"billing_code_modifier":[]');
    const first = e.slice(0, e.indexOf('},{"provider_references"') + 1);
    const p = prepareRate(bytes(first), 0, Buffer.byteLength(first));
    expect(p).not.toBeNull();
    expect(p!.prices[0]!.serviceCode).toEqual(['01', '11', '09']);
    const fast = await parseOk(doc(e), { parser: 'fast' });
    const slow = await parseOk(doc(e), { parser: 'reference' });
    expect(fast.calls).toEqual(slow.calls);
    expect(slow.warnings.map((w) => [w.kind, w.example])).toEqual([
      ['unpadded_code', '1'], ['unpadded_code', '9'], ['empty_array', '[]'], ['empty_array', '[]'], ['empty_array', '[]']]);
  });

  it('leaves string reference ids and empty prices to the general path', () => {
    const g = '{"provider_groups":[{"npi":[1234567893],"tin":{"type":"ein","value":"1"}}],"negotiated_prices":[]}';
    expect(prepareRate(bytes(g), 0, g.length)).toBeNull();
    const s = entry('"negotiated_rate":7', '["1"]');
    expect(prepareRate(bytes(s), 0, s.length)).toBeNull();
  });

  const PRICE = '{"negotiated_type":"negotiated","negotiated_rate":7,"expiration_date":"2025-12-31","billing_class":"professional"}';
  const G1 = '{"npi":[1234567893,1518379601],"tin":{"type":"ein","value":"22-2222222","business_name":"Clinic"},"network_name":["Select"]}';
  const G2 = '{"tin":{"value":"1111111111","type":"npi"},"npi":[1111111111]}';
  it.each([
    ['one group', `{"provider_groups":[${G1}],"negotiated_prices":[${PRICE}]}`],
    ['two groups, prices first', `{"negotiated_prices":[${PRICE},${PRICE}],"provider_groups":[${G1},${G2}]}`],
    ['groups and references', `{"provider_references":[3,4],"provider_groups":[${G2}],"negotiated_prices":[${PRICE}]}`],
  ])('reads inline provider groups (%s) exactly as the general path does', async (_name, e) => {
    const p = prepareRate(bytes(e), 0, Buffer.byteLength(e));
    expect(p).not.toBeNull();
    const viaReference = (await parseOk(doc(e), { parser: 'reference' })).rates[0]!;
    expect({ refIds: p!.refIds, inlineGroups: p!.inlineGroups, prices: p!.prices })
      .toEqual({ refIds: viaReference.refIds, inlineGroups: viaReference.inlineGroups, prices: viaReference.prices });
    expect(p!.inlineGroups.length).toBeGreaterThan(0);
  });

  it.each([
    ['an empty group list', '[]'],
    ['a TIN-only group (npi [0])', '[{"npi":[0],"tin":{"type":"ein","value":"1"}}]'],
    ['NPIs as strings', '[{"npi":["1234567893"],"tin":{"type":"ein","value":"1"}}]'],
    ['no tin', '[{"npi":[1234567893]}]'],
    ['an unknown key', '[{"npi":[1234567893],"tin":{"type":"ein","value":"1"},"x":1}]'],
    ['a TIN type in capitals', '[{"npi":[1234567893],"tin":{"type":"EIN","value":"1"}}]'],
  ])('leaves inline groups with %s to the general path, the same records and warnings', async (_name, groups) => {
    const e = `{"provider_groups":${groups},"negotiated_prices":[${PRICE}]}`;
    expect(prepareRate(bytes(e), 0, Buffer.byteLength(e))).toBeNull();
    const fast = await parseOk(doc(e), { parser: 'fast' });
    const slow = await parseOk(doc(e), { parser: 'reference' });
    expect(fast.calls).toEqual(slow.calls);
    expect(slow.rates.length + slow.warnings.length).toBeGreaterThan(0);
  });
});

describe('prepareRate: a price read before (its bytes but the number the same)', () => {
  const read = (e: string): PreparedRate | null => prepareRate(bytes(e), 0, Buffer.byteLength(e));
  const rates = (...prices: string[]) => `{"provider_references":[1],"negotiated_prices":[${prices.join(',')}]}`;
  const P = (rate: string, rest = '"billing_class":"professional","service_code":["11"]') => `{"negotiated_type":"negotiated","negotiated_rate":${rate},"expiration_date":"9999-12-31",${rest}}`;
  // Descriptions of every kind the shortcut takes, some with the general path's warnings.
  const KINDS = [
    (r: string) => P(r),
    (r: string) => P(r, '"billing_class":"institutional","setting":"inpatient"'),
    (r: string) => P(r, '"billing_class":"professional","service_code":["1","11","9"],"billing_code_modifier":[]'), // three warnings
    (r: string) => P(r, '"billing_class":"both","billing_code_modifier":["26","TC"],"additional_information":"my_rate"'),
    (r: string) => `{"billing_class":"professional","additional_information":"x_rate","expiration_date":"2025-12-31","negotiated_type":"fee schedule","negotiated_rate":${r}}`,
    (r: string) => `{\n  "negotiated_type": "derived",\n  "negotiated_rate":   ${r} ,\n  "expiration_date": "9999-12-31",\n  "billing_class": "professional"\n}`,
  ];

  it('is that price\'s description, warnings and hash again, with its own rate, under the same key: as the general path reads it', async () => {
    forgetKnownPrices();
    const first = rates(...KINDS.map((k, i) => k(String(10 + i))));
    const again = rates(...KINDS.map((k, i) => k(`${1000 - i}.25`)).reverse());
    const a = read(first)!, b = read(again)!;
    expect(a.descriptionKeys.every((k) => k > 0)).toBe(true);
    expect(new Set(a.descriptionKeys).size).toBe(KINDS.length);
    expect(b.descriptionKeys).toEqual([...a.descriptionKeys].reverse());
    expect(b.descriptionHashes).toEqual([...a.descriptionHashes].reverse());
    expect(b.prices.map((p) => p.negotiatedRate)).toEqual(KINDS.map((_, i) => 1000 - i + 0.25).reverse());
    expect(b.warnings).toEqual(a.warnings);
    const fast = await parseOk(doc(`${first},${again},${again}`), { parser: 'fast' });
    const slow = await parseOk(doc(`${first},${again},${again}`), { parser: 'reference' });
    expect(fast.calls).toEqual(slow.calls);
    expect(slow.warnings).toHaveLength(9);
  });

  it.each([
    ['0.01', null], ['0', null], ['-5', null], ['1e2', null], ['"7"', null], ['0.30000000000000004', null], ['7.', null], ['07', null],
    [' 7', 7], ['7 ', 7], ['123456.789', 123456.789], ['0.0100001', 0.0100001],
  ])('with the rate %s: taken as the general path takes it, or left to it', async (rate, want) => {
    forgetKnownPrices();
    expect(read(rates(P('7')))).not.toBeNull(); // the description, known from now on
    const e = rates(P(rate));
    const p = read(e);
    if (want === null) expect(p).toBeNull();
    else expect(p!.prices.map((x) => x.negotiatedRate)).toEqual([want]);
    const [fast, slow] = await Promise.all([parseBytes(doc(e), { parser: 'fast' }), parseBytes(doc(e), { parser: 'reference' })]);
    expect(fast.rec.calls).toEqual(slow.rec.calls);
  });

  it('another byte anywhere but the number: another description, read as such', () => {
    forgetKnownPrices();
    const base = read(rates(P('7')))!;
    for (const other of [P('7', '"billing_class":"professional","service_code":["12"]'), P('7', '"billing_class":"professional","service_code":["11"] '),
      P('7', '"billing_class":"institutional","service_code":["11"]'), P('7').replace('"negotiated_type":"negotiated"', '"negotiated_type":"derived"')]) {
      const p = read(rates(other))!;
      expect(p.descriptionKeys[0]).not.toBe(base.descriptionKeys[0]);
      expect(p.prices).toEqual(read(rates(other))!.prices);
    }
    expect(read(rates(P('7', '"billing_class":"professional","service_code":["12"]')))!.prices[0]!.serviceCode).toEqual(['12']);
  });

  it('sameBytes: equal stretches at any length and alignment, and one byte other anywhere told apart', () => {
    // Text as price() takes it (whitespace and ASCII from 0x20), at every offset on both sides.
    const text = Buffer.from('{"negotiated_type":"per diem",\t"expiration_date":"9999-12-31"\n, "x":["~ \u007f"]}', 'latin1');
    const arena = new Uint8Array(256), adv = new DataView(arena.buffer);
    const input = new Uint8Array(256), dv = new DataView(input.buffer);
    let checked = 0;
    for (let len = 0; len <= 40; len++) {
      for (const at of [0, 1, 3, 4, 7, 8, 13]) {
        for (const from of [0, 2, 5, 8, 11]) {
          const part = text.subarray(len % 9, (len % 9) + len);
          arena.fill(0x20); input.fill(0x20);
          arena.set(part, at); input.set(part, from);
          expect(sameBytes(dv, input, from, from + len, adv, arena, at)).toBe(true);
          for (let k = 0; k < len; k++) {
            for (const other of [part[k]! ^ 1, part[k]! === 0x20 ? 0x21 : 0x20, 0x80, 0xff]) {
              input[from + k] = other;
              expect(sameBytes(dv, input, from, from + len, adv, arena, at)).toBe(false);
              checked++;
            }
            input[from + k] = part[k]!;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(20_000);
  });

  it('one byte other at any place of a long string, before or after the number: another description', () => {
    // A byte at each place of an eight-byte word and of the last few, end to end. (The hash mostly
    // tells these apart before the compare does: the test above pins sameBytes itself.)
    forgetKnownPrices();
    const info = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN';
    const before = (x: string) => `{"additional_information":"${x}","billing_class":"professional","expiration_date":"9999-12-31","negotiated_type":"negotiated","negotiated_rate":7}`;
    for (const shape of [before, (x: string) => P('7', `"billing_class":"professional","additional_information":"${x}"`)]) {
      const base = read(rates(shape(info)))!;
      expect(read(rates(shape(info)))!.descriptionKeys).toEqual(base.descriptionKeys);
      for (let at = 0; at < info.length; at++) {
        const other = `${info.slice(0, at)}_${info.slice(at + 1)}`;
        const p = read(rates(shape(other)))!;
        expect(p.prices[0]!.additionalInformation).toBe(other);
        expect(p.descriptionKeys[0]).not.toBe(base.descriptionKeys[0]);
        expect(read(rates(shape(other)))!.descriptionKeys).toEqual(p.descriptionKeys); // and known from now on
      }
      expect(read(rates(shape(info)))!.prices[0]!.additionalInformation).toBe(info);
    }
  });

  it('a price with a `}` in a string after its rate is read, never kept (key 0)', async () => {
    forgetKnownPrices();
    const e = rates(P('7', '"billing_class":"professional","additional_information":"a}b"'));
    for (let i = 0; i < 3; i++) {
      const p = read(e)!;
      expect(p.descriptionKeys).toEqual([0]);
      expect(p.prices[0]!.additionalInformation).toBe('a}b');
    }
    expect((await parseOk(doc(e), { parser: 'fast' })).calls).toEqual((await parseOk(doc(e), { parser: 'reference' })).calls);
  });

  it('a full cache starts over: the first description read again after 70,000 others is right, under a new key', () => {
    forgetKnownPrices();
    const info = (n: number) => P('5', `"billing_class":"professional","additional_information":"n${n}"`);
    const k0 = read(rates(info(0)))!.descriptionKeys[0]!;
    const seen = new Map<number, number>();
    for (let n = 1; n <= 70_000; n++) {
      const p = read(rates(P('7'), info(n)))!; // one known price, one new: looked up all along
      expect(p.prices[1]!.additionalInformation).toBe(`n${n}`);
      const k = p.descriptionKeys[1]!;
      expect(k).toBeGreaterThan(0);
      expect(seen.has(k)).toBe(false); // a key names one description only
      seen.set(k, n);
    }
    const p = read(rates(info(0)))!;
    expect(p.prices[0]!.additionalInformation).toBe('n0');
    expect(p.descriptionKeys[0]).toBeGreaterThan(0);
    expect(p.descriptionKeys[0]).not.toBe(k0);
    expect(seen.has(p.descriptionKeys[0]!)).toBe(false);
  });

  it('prices described anew each time are read all the same; looking them up pauses, then resumes', () => {
    forgetKnownPrices();
    const known = rates(P('7'));
    expect(read(known)!.descriptionKeys[0]).toBeGreaterThan(0);
    for (let n = 0; n < 20_000; n++) {
      const p = read(rates(P('9', `"billing_class":"professional","additional_information":"m${n}"`)))!;
      expect(p.prices[0]!.additionalInformation).toBe(`m${n}`);
    }
    expect(read(known)!.descriptionKeys).toEqual([0]); // not looked up for a while
    let resumed = -1;
    for (let n = 0; n < 100_000 && resumed < 0; n++) if (read(known)!.descriptionKeys[0]! > 0) resumed = n;
    expect(resumed).toBeGreaterThan(0);
  });
});

describe('prepareRate: a provider_references list read before (its bytes the same)', () => {
  const read = (e: string): PreparedRate | null => prepareRate(bytes(e), 0, Buffer.byteLength(e));
  const LIST = '[11, 2.50,333333,1e3 ,-5,\n123456789012 ]';

  it('is that list again, under the same key; another byte anywhere is another list, read as the general path reads it', async () => {
    forgetKnownRefs();
    const a = read(entry('"negotiated_rate":12', LIST))!;
    expect(a.refsKey).toBeGreaterThan(0);
    expect(a.refIds).toEqual(['11', '2.50', '333333', '1e3', '-5', '123456789012']);
    const again = read(entry('"negotiated_rate":13.5', LIST))!; // other prices, the same list
    expect(again.refsKey).toBe(a.refsKey);
    expect(again.refIds).toEqual(a.refIds);
    const named = new Map<number, string>([[a.refsKey, a.refIds.join()]]); // a key names one list of ids only
    const others: string[] = [];
    // Each byte between the brackets changed as valid JSON allows: a digit for another, a space
    // added or removed, a separator moved.
    for (let at = 1; at < LIST.length - 1; at++) {
      const c = LIST[at]!;
      const other = c >= '0' && c <= '9' ? `${LIST.slice(0, at)}${c === '9' ? '8' : String(Number(c) + 1)}${LIST.slice(at + 1)}`
        : c === ' ' || c === '\n' ? `${LIST.slice(0, at)}${LIST.slice(at + 1)}` : `${LIST.slice(0, at)} ${LIST.slice(at)}`;
      const p = read(entry('"negotiated_rate":12', other));
      if (p === null) continue; // no longer a list the shortcut takes (a leading zero)
      expect(p.refIds).toEqual((await parseOk(doc(entry('"negotiated_rate":12', other)), { parser: 'reference' })).rates[0]!.refIds);
      expect(read(entry('"negotiated_rate":14', other))!.refsKey).toBe(p.refsKey); // known from now on
      expect(named.get(p.refsKey) ?? p.refIds.join()).toBe(p.refIds.join());
      named.set(p.refsKey, p.refIds.join());
      others.push(other);
    }
    expect(others.length).toBeGreaterThan(20);
    expect(read(entry('"negotiated_rate":12', LIST))!.refsKey).toBe(a.refsKey);
    const e = [LIST, ...others, LIST, ...others].map((l) => entry('"negotiated_rate":12', l)).join(',');
    expect((await parseOk(doc(e), { parser: 'fast' })).calls).toEqual((await parseOk(doc(e), { parser: 'reference' })).calls);
  });

  it('leaves lists the shortcut does not take to the general path, never kept; a list too long to keep is read, key 0', () => {
    forgetKnownRefs();
    for (const l of ['[]', '["1"]', '[1,]', '[01]', '[1 2]']) {
      for (let i = 0; i < 2; i++) expect(read(entry('"negotiated_rate":12', l))).toBeNull();
    }
    const long = `[${Array.from({ length: 400 }, (_, i) => 100000 + i).join(',')}]`; // 2.8 KB
    for (let i = 0; i < 2; i++) {
      const p = read(entry('"negotiated_rate":12', long))!;
      expect(p.refsKey).toBe(0);
      expect(p.refIds).toHaveLength(400);
      expect(p.refIds[399]).toBe('100399');
    }
  });

  it('a full cache starts over: the first list read again after 10,000 others is right, under a new key', () => {
    forgetKnownRefs();
    const k0 = read(entry('"negotiated_rate":12', '[7,8]'))!.refsKey;
    const seen = new Set<number>([k0]);
    for (let n = 1; n <= 10_000; n++) {
      const p = read(entry('"negotiated_rate":12', `[7,${n + 8}]`))!;
      expect(p.refIds).toEqual(['7', String(n + 8)]);
      expect(p.refsKey).toBeGreaterThan(0);
      expect(seen.has(p.refsKey)).toBe(false); // a key names one list only
      seen.add(p.refsKey);
    }
    const p = read(entry('"negotiated_rate":12', '[7,8]'))!;
    expect(p.refIds).toEqual(['7', '8']);
    expect(seen.has(p.refsKey)).toBe(false);
  });
});

describe('prepareReference', () => {
  const REF = '{"provider_group_id":7,"network_name":["Choice Plus"],"provider_groups":[{"npi":[1234567893,1518379601],"tin":{"type":"ein","value":"22-2222222","business_name":"Clinic"},"network_name":["Select"]},{"npi":[1111111111],"tin":{"type":"npi","value":"1111111111"}}]}';
  const docOf = (ref: string) => `{"version":"1","reporting_entity_name":"x","last_updated_on":"2024-01-01","provider_references":[${ref}]}`;

  it('reads a canonical reference exactly as the general path does', async () => {
    const p = prepareReference(bytes(REF), 0, REF.length);
    expect(p).not.toBeNull();
    const viaReference = await parseOk(docOf(REF), { parser: 'reference' });
    expect(p).toEqual(viaReference.refs[0]);
    expect(JSON.stringify(p)).toBe(JSON.stringify(viaReference.refs[0])); // same key order too
  });

  // NPIs read in place (npiArray's common case) or, for anything else, by the general steps.
  it.each([
    ['whitespace around NPIs', '[ 1234567893 ,1518379601, 1111111111 ]'],
    ['an NPI written 1234567893.0', '[1234567893.0,1518379601]'],
    ['one digit and ten digits', '[7,9999999999]'],
    ['the last NPI ending the record', '[1234567893]'],
    ['ten-digit NPIs of every digit in every place', `[${Array.from({ length: 10 }, (_, d) => Array.from({ length: 10 }, (_, at) => '1234567893'.slice(0, at) + d + '1234567893'.slice(at + 1)).filter((n) => n[0] !== '0').join(',')).join(',')}]`],
    ['the largest and smallest ten-digit numbers', '[9999999999,1000000000,4294967295,4294967296]'],
    ['ten digits then a space, a nine- and an eleven-digit number', '[1234567893 ,123456789,1234567893]'],
  ])('reads %s as the general path does', async (_what, list) => {
    const ref = REF.replace('[1234567893,1518379601]', list);
    const p = prepareReference(bytes(ref), 0, ref.length);
    expect(p).not.toBeNull();
    const viaReference = await parseOk(docOf(ref), { parser: 'reference' });
    expect(p).toEqual(viaReference.refs[0]);
  });

  it.each([
    ['a trailing comma', '[1111111111,]'],
    ['a leading zero', '[01111111111]'],
    ...['123456789:', '12345678/3', '1234:67893', '/234567893', '12345678:3', '123456789a', '0123456789'].map((bad) => [`the ten bytes ${bad}`, `[1111111111,${bad}]`] as [string, string]),
  ])('refuses an NPI list with %s, which both parsers then fail as invalid JSON', async (_what, list) => {
    const ref = REF.replace('[1111111111]', list);
    expect(prepareReference(bytes(ref), 0, ref.length)).toBeNull();
    for (const parser of ['fast', 'reference'] as const) {
      const out = await parseBytes(docOf(ref), { parser });
      expect(!out.ok && (out.error as TicParseError).reason).toBe('invalid_json');
    }
  });

  it.each([
    ['a decimal id', REF.replace('"provider_group_id":7', '"provider_group_id":690.64462')],
    ['an 11-digit "NPI"', REF.replace('[1111111111]', '[11111111111]')],
    ['a negative NPI', REF.replace('[1111111111]', '[-1111111111]')],
    ['an NPI with an exponent', REF.replace('[1111111111]', '[1111111111e0]')],
    ['a TIN-only group', REF.replace('[1111111111]', '[0]')],
    ['NPIs as strings', REF.replace('[1111111111]', '["1111111111"]')],
    ['a remote location', '{"provider_group_id":2,"location":"https://x.example/r.json"}'],
    ['an upper-case tin type', REF.replace('"type":"ein"', '"type":"EIN"')],
    ['empty provider_groups', '{"provider_group_id":2,"provider_groups":[]}'],
    ['an unknown key', REF.replace('"provider_group_id":7', '"provider_group_id":7,"x":1')],
  ])('leaves %s to the general path', async (_what, ref) => {
    expect(prepareReference(bytes(ref), 0, Buffer.byteLength(ref))).toBeNull();
    const fast = await parseOk(docOf(ref), { parser: 'fast' });
    const slow = await parseOk(docOf(ref), { parser: 'reference' });
    expect(fast.calls).toEqual(slow.calls);
  });
});
