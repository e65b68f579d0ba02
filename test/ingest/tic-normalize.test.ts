/** Unit tests of the TiC normalisation rules (ingest/tic/normalize.ts). */
import { describe, expect, it } from 'vitest';
import * as N from '../../ingest/tic/normalize.ts';
import type { WarningKind } from '../../ingest/tic/records.ts';
import { RawNumber } from '../../ingest/tic/raw-ids.ts';

function w(): { warn: N.Warn; kinds: WarningKind[]; examples: string[] } {
  const kinds: WarningKind[] = [];
  const examples: string[] = [];
  return { warn: (k, _p, e) => { kinds.push(k); examples.push(e); }, kinds, examples };
}

describe('billing codes', () => {
  it.each([
    ['MS-DRG', '0001', '001', ['unpadded_code']],
    ['MS-DRG', '1', '001', ['unpadded_code']],
    ['MS-DRG', '470', '470', []],
    ['MS-DRG', 'ABC', 'ABC', []],
    ['RC', '450', '0450', ['unpadded_code']],
    ['RC', '0450', '0450', []],
    ['CPT', '99214', '99214', []],
    ['CPT', '0001a', '0001A', []],
    ['CPT', '1960', '01960', ['unpadded_code']],
    ['HCPCS', 'j1745', 'J1745', []],
    ['ICD', '81.54', '81.54', []],
  ] as const)('%s %s -> %s', (type, raw, want, warnings) => {
    const x = w();
    expect(N.billingCode(type, raw, 'p', x.warn)).toBe(want);
    expect(x.kinds).toEqual(warnings);
  });

  it('upper-cases billing_code_type', () => {
    expect(N.codeType(' ms-drg ', 'p', w().warn)).toBe('MS-DRG');
    expect(N.codeType(undefined, 'p', w().warn)).toBeNull();
  });
});

describe('service codes (place of service)', () => {
  it('pads one-digit codes with a warning each and keeps CSTM-00', () => {
    const x = w();
    expect(N.serviceCodes(['1', '11', 'cstm-00', 3], 'p', x.warn)).toEqual(['01', '11', 'CSTM-00', '03']);
    expect(x.kinds).toEqual(['unpadded_code', 'type_coerced', 'unpadded_code']);
  });
  it('turns [] into null with empty_array, absent into null silently', () => {
    const x = w();
    expect(N.serviceCodes([], 'p', x.warn)).toBeNull();
    expect(N.serviceCodes(undefined, 'p', x.warn)).toBeNull();
    expect(x.kinds).toEqual(['empty_array']);
  });
});

describe('NPIs', () => {
  it('keeps numbers, converts numeric strings with type_coerced', () => {
    const x = w();
    expect(N.npis(['9889889881', 1234567890], 'p', x.warn)).toEqual([9889889881, 1234567890]);
    expect(x.kinds).toEqual(['type_coerced']);
  });
  it('drops a number of more than 10 digits (no NPI; past 2^63 no BIGINT either) with invalid_value', () => {
    const x = w();
    expect(N.npis([99999999999, 9999999999, '123456789012345678901234', 1e300, 1234567890], 'p', x.warn)).toEqual([9999999999, 1234567890]);
    expect(x.kinds).toEqual(['invalid_value', 'invalid_value', 'invalid_value']);
  });
  it('treats [0] and [] as a TIN-only group', () => {
    const a = w();
    expect(N.npis([0], 'p', a.warn)).toEqual([]);
    expect(a.kinds).toEqual(['tin_only_group']);
    const b = w();
    expect(N.npis([], 'p', b.warn)).toEqual([]);
    expect(b.kinds).toEqual(['tin_only_group']);
  });
  it('drops garbage with invalid_value', () => {
    const x = w();
    expect(N.npis([1234567890, 'abc', -5], 'p', x.warn)).toEqual([1234567890]);
    expect(x.kinds).toEqual(['invalid_value', 'invalid_value']);
  });
});

describe('dates', () => {
  it.each([
    ['2022-01-01', '2022-01-01', []],
    ['9999-12-31', '9999-12-31', []],
    ['2022-01-01T00:00:00Z', '2022-01-01', ['type_coerced']],
    ['01/31/2023', '2023-01-31', ['type_coerced']],
    ['9999-99-99', null, ['invalid_value']],
    ['2023-02-29', null, ['invalid_value']],
    ['2024-02-29', '2024-02-29', []],
  ] as const)('%s -> %s', (raw, want, warnings) => {
    const x = w();
    expect(N.date(raw, 'p', x.warn)).toBe(want);
    expect(x.kinds).toEqual(warnings);
  });
});

describe('enums and strings', () => {
  it('lower-cases enum values and flags unknown ones', () => {
    const x = w();
    expect(N.enumLower('Fee Schedule', N.NEGOTIATED_TYPES, 'p', x.warn)).toBe('fee schedule');
    expect(N.enumLower('per diem', N.NEGOTIATED_TYPES, 'p', x.warn)).toBe('per diem');
    expect(N.enumLower('capitated', N.NEGOTIATED_TYPES, 'p', x.warn)).toBe('capitated');
    expect(x.kinds).toEqual(['invalid_value']);
    for (const c of ['professional', 'institutional', 'both']) expect(N.enumLower(c, N.BILLING_CLASSES, 'p', x.warn)).toBe(c);
  });
  it('trims strings and maps "" to null', () => {
    expect(N.str('  a  ', 'p', w().warn)).toBe('a');
    expect(N.str('', 'p', w().warn)).toBeNull();
    const x = w();
    expect(N.str(12, 'p', x.warn)).toBe('12');
    expect(x.kinds).toEqual(['type_coerced']);
  });
  it('numbers: numeric strings convert with a warning, garbage is null', () => {
    const x = w();
    expect(N.num(12.5, 'p', x.warn)).toBe(12.5);
    expect(N.num('$1,200.50', 'p', x.warn)).toBe(1200.5);
    expect(N.num('abc', 'p', x.warn)).toBeNull();
    expect(x.kinds).toEqual(['type_coerced']);
  });
});

describe('provider reference ids', () => {
  it('keeps raw number text; numbers and numeric strings get their canonical text', () => {
    expect(N.refId(new RawNumber('690.64462'), 'p', w().warn)).toBe('690.64462');
    expect(N.refId(new RawNumber('1.0'), 'p', w().warn)).toBe('1.0');
    expect(N.refId(690.64462, 'p', w().warn)).toBe('690.64462');
    expect(N.refId(1, 'p', w().warn)).toBe('1');
    const x = w();
    expect(N.refId('1', 'p', x.warn)).toBe('1');
    expect(x.kinds).toEqual(['type_coerced']);
  });
});
