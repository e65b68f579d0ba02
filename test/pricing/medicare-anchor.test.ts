/**
 * Medicare anchors against HAND computations from the real 2026 files, to the cent.
 *
 * The snapshot is built from the repo's CMS files through the real loaders and read back through
 * the DuckDB reference adapter, so the whole path is exercised. Each expected figure below was
 * computed by hand from the numbers printed in the files (quoted in the comments):
 *   PPRRVU2026_Apr_nonQPP.txt (RVU26B): work, PE and MP RVUs;
 *   GPCI2026.csv: work (without / with 1.0 floor), PE and MP GPCIs;
 *   ZIP5_OCT2025.txt: ZIP -> carrier + locality; conversion factor 33.4009 (QPP 33.5675).
 * Rounding: the unrounded sum of products times the CF, rounded half-up to the cent.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DuckReferenceStore } from '../../engine/pricing/adapters/reference.duckdb.ts';
import { feeScheduleCents, medicareAllowed, medicareAnchor, rateRatio, settingForPlaceOfService } from '../../engine/pricing/medicare.ts';
import type { MedicareTables } from '../../engine/pricing/medicare-tables.ts';
import { buildReferenceSnapshot, TEST_ZIPS, type BuiltSnapshot } from './medicare-fixture.ts';

const CODES = new Set(['99213', '70551', '45378', '93000', '71275', '99221', '01960', '80053', 'G0121', '0001F']);
let snap: BuiltSnapshot;
let tables: MedicareTables;
const TODAY = '2026-11-22';

beforeAll(async () => {
  snap = await buildReferenceSnapshot({}, { zip5: TEST_ZIPS, hcpcs: (c) => CODES.has(c) });
  tables = await new DuckReferenceStore(snap.db).medicare();
});
afterAll(() => snap?.close());

describe('the inputs are the files\' numbers', () => {
  test('RVUs, GPCIs and localities read back from the snapshot', () => {
    expect(tables.rvu(2026, '99213')).toMatchObject({ work_rvu: 1.3, nf_pe_rvu: 1.46, f_pe_rvu: 0.33, mp_rvu: 0.09, status: 'A' });
    expect(tables.zip('94110')).toMatchObject({ carrier: '01112', locality: '05' });
    expect(tables.gpci(2026, '01112', '05')).toMatchObject({ work_gpci_no_floor: 1.095, pe_gpci: 1.41, mp_gpci: 0.425 });
    expect(tables.conversionFactor(2026, 'mpfs')?.value).toBe(33.4009);
  });
});

describe('2026 MPFS anchors equal hand computations (asOf 2026-11-22: no work GPCI floor)', () => {
  const allowed = (code: string, zip5: string, setting: 'facility' | 'non-facility', modifier?: string, asOf = TODAY) =>
    medicareAllowed(tables, { code, zip5, setting, asOf, ...(modifier ? { modifier } : {}) });

  test('99213 non-facility, San Francisco (ZIP 94110 -> 01112 locality 05)', () => {
    // RVU: "99213 A 1.30 1.46 0.33 0.09"; GPCI "01112,CA,05,SAN FRANCISCO-OAKLAND-BERKELEY …,1.095,1.095,1.410,0.425"
    // (1.30 x 1.095) + (1.46 x 1.410) + (0.09 x 0.425) = 1.4235 + 2.0586 + 0.03825 = 3.52035
    // 3.52035 x 33.4009 = 117.582858… -> $117.58
    const m = allowed('99213', '94110', 'non-facility');
    expect(m.medicareAllowed).toBe(117.58);
    expect(m).toMatchObject({ year: 2026, setting: 'non-facility', mac: '01112', status: 'A', oppsCapApplied: false });
    expect(m.locality).toMatchObject({ mac: '01112', locality: '05', state: 'CA' });
    expect(m.source).toContain('SAN FRANCISCO');
  });

  test('99213 facility, San Francisco', () => {
    // (1.30 x 1.095) + (0.33 x 1.410) + (0.09 x 0.425) = 1.4235 + 0.4653 + 0.03825 = 1.92705
    // 1.92705 x 33.4009 = 64.365204… -> $64.37
    expect(allowed('99213', '94110', 'facility').medicareAllowed).toBe(64.37);
  });

  test('70551 (MRI brain) non-facility, Los Angeles (ZIP 90012 -> 01182 locality 18)', () => {
    // RVU: "70551 A 1.44 4.31 4.31NA 0.10", OPPS PE 7.77, OPPS MP 0.12; GPCI "01182,CA,18,LOS ANGELES…,1.041,1.041,1.183,0.664"
    // (1.44 x 1.041) + (4.31 x 1.183) + (0.10 x 0.664) = 1.49904 + 5.09873 + 0.0664 = 6.66417
    // 6.66417 x 33.4009 = 222.589275… -> $222.59
    // OPPS cap: (1.44 x 1.041) + (7.77 x 1.183) + (0.12 x 0.664) = 10.77063 x 33.4009 = $359.75: higher, no cap.
    const m = allowed('70551', '90012', 'non-facility');
    expect(m.medicareAllowed).toBe(222.59);
    expect(m.oppsCapApplied).toBe(false);
  });

  test('70551 modifier 26 (professional component) facility, Los Angeles: rounding at the half cent', () => {
    // RVU: "7055126 A 1.44 0.51 0.51 0.08"
    // (1.44 x 1.041) + (0.51 x 1.183) + (0.08 x 0.664) = 1.49904 + 0.60333 + 0.05312 = 2.15549
    // 2.15549 x 33.4009 = 71.995305… -> $72.00
    expect(allowed('70551', '90012', 'facility', '26').medicareAllowed).toBe(72.0);
  });

  test('45378 (colonoscopy) facility, rural "Rest of California" (ZIP 96101 -> 01112 locality 75)', () => {
    // RVU: "45378 A 3.18 7.73 1.34 0.41"; GPCI "01112,CA,75,REST OF CALIFORNIA,1.017,1.017,1.096,0.536"
    // (3.18 x 1.017) + (1.34 x 1.096) + (0.41 x 0.536) = 3.23406 + 1.46864 + 0.21976 = 4.92246
    // 4.92246 x 33.4009 = 164.414594… -> $164.41
    const m = allowed('45378', '96101', 'facility');
    expect(m.medicareAllowed).toBe(164.41);
    expect(m.locality?.name).toBe('REST OF CALIFORNIA');
  });

  test('93000 (ECG) non-facility, Manhattan (ZIP 10001 -> 13202 locality 01)', () => {
    // RVU: "93000 A 0.17 0.27 0.27NA 0.02"; GPCI "13202,NY,01,MANHATTAN,1.064,1.064,1.162,1.586"
    // (0.17 x 1.064) + (0.27 x 1.162) + (0.02 x 1.586) = 0.18088 + 0.31374 + 0.03172 = 0.52634
    // 0.52634 x 33.4009 = 17.580229… -> $17.58
    expect(allowed('93000', '10001', 'non-facility').medicareAllowed).toBe(17.58);
  });

  test('OPPS imaging cap: 71275 non-facility, Los Angeles, capped at the OPPS amount', () => {
    // RVU: "71275 A 1.77 6.49 6.49 0.14", OPPS NF PE 5.96, OPPS MP 0.14
    // PFS:  (1.77 x 1.041) + (6.49 x 1.183) + (0.14 x 0.664) = 9.61320 x 33.4009 = 321.0895… -> $321.09
    // OPPS: (1.77 x 1.041) + (5.96 x 1.183) + (0.14 x 0.664) = 8.98621 x 33.4009 = 300.1475… -> $300.15 (lower: paid)
    const m = allowed('71275', '90012', 'non-facility');
    expect(m.medicareAllowed).toBe(300.15);
    expect(m.oppsCapApplied).toBe(true);
    expect(m.source).toContain('OPPS imaging cap');
  });

  test('work GPCI floor: by date of service (floor through 2026-01-31), Birmingham AL (ZIP 35203 -> 10112 locality 00)', () => {
    // GPCI "10112,AL,00,ALABAMA,0.988,1.000,0.875,0.566" (without floor 0.988, with floor 1.000)
    // After 2026-01-31: (1.30 x 0.988) + (1.46 x 0.875) + (0.09 x 0.566) = 1.2844 + 1.2775 + 0.05094 = 2.61284
    //   2.61284 x 33.4009 = 87.271207… -> $87.27
    // On 2026-01-15: (1.30 x 1.000) + 1.2775 + 0.05094 = 2.62844 x 33.4009 = 87.792261… -> $87.79
    const late = allowed('99213', '35203', 'non-facility');
    expect(late.medicareAllowed).toBe(87.27);
    expect(late.gpci).toMatchObject({ work: 0.988, workFloorApplied: false });
    const early = allowed('99213', '35203', 'non-facility', undefined, '2026-01-15');
    expect(early.medicareAllowed).toBe(87.79);
    expect(early.gpci).toMatchObject({ work: 1, workFloorApplied: true });
    expect(allowed('99213', '35203', 'non-facility', undefined, '2026-01-31').medicareAllowed).toBe(87.79);
    expect(allowed('99213', '35203', 'non-facility', undefined, '2026-02-01').medicareAllowed).toBe(87.27);
  });

  test('QPP conversion factor 33.5675', () => {
    // 3.52035 (99213 non-facility SF, above) x 33.5675 = 118.169348… -> $118.17
    expect(medicareAllowed(tables, { code: '99213', zip5: '94110', setting: 'non-facility', asOf: TODAY, qpp: true }).medicareAllowed).toBe(118.17);
  });
});

describe('not priced: null with a reason, never a throw', () => {
  const m = (code: string, setting: 'facility' | 'non-facility' = 'non-facility', zip5 = '94110', modifier?: string) =>
    medicareAllowed(tables, { code, zip5, setting, asOf: TODAY, ...(modifier ? { modifier } : {}) });
  test.each([
    ['70551', 'facility', /NA indicator/],
    ['99221', 'non-facility', /NA indicator/],
    ['01960', 'non-facility', /anesthesia/i],
    ['80053', 'non-facility', /Clinical Laboratory Fee Schedule/],
    ['470', 'facility', /MS-DRG/],
    ['99999', 'non-facility', /not on the 2026 Medicare physician fee schedule/],
  ] as const)('%s %s', (code, setting, reason) => {
    const r = m(code, setting);
    expect(r.medicareAllowed).toBeNull();
    expect(r.reason).toMatch(reason);
    expect(medicareAnchor(r, 100)).toBeNull();
  });
  test('unknown ZIP and a modifier the code does not have', () => {
    expect(m('99213', 'non-facility', '00000').reason).toMatch(/ZIP 00000/);
    expect(m('99213', 'non-facility', '94110', 'TC').reason).toMatch(/no separate amount/);
  });
  test('odd input never throws', () => {
    for (const [code, zip5, modifier] of [['', '', ''], ['99213', 'abcde', 'ZZ'], ['  99213 ', '94110-1234', ''], ['💥', '9', '26']] as const) {
      const r = medicareAllowed(tables, { code, zip5, setting: 'non-facility', modifier, asOf: TODAY });
      expect(r.medicareAllowed === null ? typeof r.reason : typeof r.medicareAllowed).toBe(r.medicareAllowed === null ? 'string' : 'number');
    }
    // ZIP+4 and padding are tolerated: same as the 94110 case above.
    expect(medicareAllowed(tables, { code: ' 99213 ', zip5: '94110-1234', setting: 'non-facility', asOf: TODAY }).medicareAllowed).toBe(117.58);
  });
  test('a status M code (0001F) is not payable', () => {
    expect(m('0001F').reason).toMatch(/\(status [IM]\)/);
  });
});

describe('helpers', () => {
  test('rateRatio and the anchor object', () => {
    const r = medicareAllowed(tables, { code: '99213', zip5: '94110', setting: 'non-facility', asOf: TODAY });
    // 176.37 / 117.58 = 1.49999… -> 1.5
    expect(rateRatio(176.37, 117.58)).toBe(1.5);
    expect(medicareAnchor(r, 235.16)).toEqual({ source: r.source, medicareAllowed: 117.58, rateRatio: 2, year: 2026, setting: 'non-facility' });
    expect(rateRatio(null, 100)).toBeNull();
    expect(rateRatio(100, 0)).toBeNull();
  });
  test('exact integer arithmetic: no binary floating point drift', () => {
    // 0.1 x 0.1 + 0.2 x 0.2 + 0 = 0.05 exactly; x 1.0000 = $0.05 = 5 cents (in floats the sum is 0.05000000000000001).
    expect(feeScheduleCents({ work: 0.1, pe: 0.2, mp: 0 }, { work: 0.1, pe: 0.2, mp: 0 }, 1)).toBe(5);
    // 0.29 x 0.500 x 1 = $0.145 exactly -> half-up $0.15 (in floats 0.29 * 0.5 * 100 = 14.499999999999998, which rounds to 14).
    expect(Math.round(0.29 * 0.5 * 100)).toBe(14);
    expect(feeScheduleCents({ work: 0.29, pe: 0, mp: 0 }, { work: 0.5, pe: 0, mp: 0 }, 1)).toBe(15);
    expect(feeScheduleCents({ work: 1, pe: 0, mp: 0 }, { work: 1, pe: 0, mp: 0 }, 0.005)).toBe(1); // 0.005 -> half-up 0.01
  });
  test('place of service to setting', () => {
    expect(settingForPlaceOfService('11')).toBe('non-facility');
    expect(settingForPlaceOfService('22')).toBe('facility');
    expect(settingForPlaceOfService('24')).toBe('facility');
    // POS 02 (telehealth outside the home) is paid at the facility rate, POS 10 (in the home) at non-facility.
    expect(settingForPlaceOfService('2')).toBe('facility');
    expect(settingForPlaceOfService('10')).toBe('non-facility');
  });
});
