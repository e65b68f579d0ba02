/**
 * Patient share, the medicare block and medicareStatus. Part B parameters are the loader's own
 * rows (ingest/reference/medicare/factors.ts: 2026 deductible $283, coinsurance 20%, non-par 95%,
 * limiting 115%); allowed amounts are the hand-checked anchors of medicare-anchor.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { MEDICARE_PARAMS_ROWS } from '../../ingest/reference/medicare/factors.ts';
import type { MedicareParamsRecord } from '../../engine/pricing/medicare-tables.ts';
import { medicareBlock, medicareTypeAsk, patientShare } from '../../engine/pricing/medicare-share.ts';
import { medicareStatusFrom } from '../../engine/pricing/medicare-status.ts';

const P2026 = MEDICARE_PARAMS_ROWS.find((r) => r.year === 2026) as unknown as MedicareParamsRecord;

describe('Original Medicare patient share', () => {
  test('participating provider, allowed below the deductible (99213 non-facility SF, $117.58)', () => {
    // after the deductible: 20% x 117.58 = 23.516 -> $23.52; before: 117.58 <= 283, so all of it.
    const s = patientShare({ coverage: 'original_medicare', allowed: 117.58, params: P2026, participation: 'participating' });
    expect(s).toMatchObject({ afterDeductible: 23.52, beforeDeductibleMet: 117.58, limitingChargeMax: null });
    expect(s.note).toMatch(/\$283/);
  });

  test('participating provider, allowed above the deductible (71275 LA, $300.15)', () => {
    // after: 20% x 300.15 = 60.03; before: 283 + 20% x (300.15 - 283) = 283 + 3.43 = $286.43
    const s = patientShare({ coverage: 'original_medicare', allowed: 300.15, params: P2026, participation: 'participating' });
    expect(s).toMatchObject({ afterDeductible: 60.03, beforeDeductibleMet: 286.43 });
  });

  test('non-participating provider: the limiting charge 1.0925 x the fee schedule', () => {
    // limiting charge: 117.58 x 0.95 x 1.15 = 117.58 x 1.0925 = 128.45615 -> $128.46
    // non-par approved amount: 95% x 117.58 = 111.701 -> $111.70; Medicare pays 80% of it after the deductible: $89.36
    // patient after the deductible: 128.46 - 89.36 = $39.10; before (111.70 <= 283, Medicare pays 0): $128.46
    const s = patientShare({ coverage: 'original_medicare', allowed: 117.58, params: P2026, participation: 'non_participating' });
    expect(s).toMatchObject({ limitingChargeMax: 128.46, afterDeductible: 39.1, beforeDeductibleMet: 128.46 });
    expect(s.note).toMatch(/does not accept assignment/);
  });

  test('limiting charge on a larger amount: 300.15 x 1.0925 = 327.913875 -> $327.91', () => {
    // non-par approved 95% x 300.15 = 285.1425 -> $285.14; Medicare after deductible 80% = $228.11 (228.112)
    // before: Medicare pays 80% x (285.14 - 283) = 80% x 2.14 = $1.71 (1.712) -> patient 327.91 - 1.71 = $326.20
    const s = patientShare({ coverage: 'original_medicare', allowed: 300.15, params: P2026, participation: 'non_participating' });
    expect(s).toMatchObject({ limitingChargeMax: 327.91, afterDeductible: 99.8, beforeDeductibleMet: 326.2 });
  });

  test('participation unknown: participating figures plus the limiting charge, said honestly', () => {
    const s = patientShare({ coverage: 'original_medicare', allowed: 117.58, params: P2026 });
    expect(s).toMatchObject({ afterDeductible: 23.52, beforeDeductibleMet: 117.58, limitingChargeMax: 128.46 });
    expect(s.note).toMatch(/cannot confirm/);
  });

  test('opted-out provider: Medicare pays nothing; numbers null, the note says so', () => {
    const s = patientShare({ coverage: 'original_medicare', allowed: 117.58, params: P2026, optedOut: true });
    expect(s).toMatchObject({ afterDeductible: null, beforeDeductibleMet: null, limitingChargeMax: null });
    expect(s.note).toMatch(/opted out of Medicare: Medicare pays nothing/);
    expect(s.note).toMatch(/private contract/);
  });

  test('commercial plan: the published files carry no cost sharing, numbers null', () => {
    const s = patientShare({ coverage: 'commercial', allowed: 250, params: P2026 });
    expect(s).toMatchObject({ afterDeductible: null, beforeDeductibleMet: null, limitingChargeMax: null });
    expect(s.note).toMatch(/not the member's deductible, copay or coinsurance/);
  });

  test('no Medicare amount: null with why', () => {
    expect(patientShare({ coverage: 'original_medicare', allowed: null, params: P2026 }).note).toMatch(/no fee schedule amount/);
    expect(patientShare({ coverage: 'medicare_advantage', allowed: 100, params: P2026 }).afterDeductible).toBeNull();
  });
});

describe('medicare block and ask', () => {
  test('2026 figures, assumed flag and the medicare_type ask', () => {
    const b = medicareBlock(P2026, { assumed: true });
    expect(b).toMatchObject({ coverage: 'original_medicare', assumed: true, year: 2026, partBDeductible: 283, coinsurancePct: 20, limitingChargePct: 115, medigap: false });
    expect(b.note).toMatch(/Medicare Advantage/);
    expect(medicareBlock(P2026, { assumed: false }).note).not.toMatch(/We do not know that this person has Original Medicare/);
    expect(medicareTypeAsk().field).toBe('medicare_type');
  });
});

describe('medicareStatus', () => {
  const asOf = '2026-11-22';
  const enr = [{ npi: 1234567893, enrlmt_id: 'I1', provider_type_desc: 'PRACTITIONER - INTERNAL MEDICINE', state: 'CA' }];
  test('enrolled, not opted out: assignment unknown and the basis says why', () => {
    const s = medicareStatusFrom({ enrollment: enr, optOut: [], pecosLoaded: true, optOutLoaded: true }, asOf);
    expect(s).toMatchObject({ enrolled: true, optedOut: false, assignment: 'unknown' });
    expect(s.basis).toMatch(/PECOS enrollment alone does not say/);
  });
  test('opted out now, ended, starting later', () => {
    const now = medicareStatusFrom({ enrollment: [], optOut: [{ npi: 1, optout_effective_date: '2025-03-01', optout_end_date: '2027-03-01', specialty: null }], pecosLoaded: true, optOutLoaded: true }, asOf);
    expect(now).toMatchObject({ optedOut: true, assignment: 'opted_out', enrolled: false });
    expect(now.basis).toMatch(/since 2025-03-01 through 2027-03-01/);
    const ended = medicareStatusFrom({ enrollment: enr, optOut: [{ npi: 1, optout_effective_date: '2022-01-01', optout_end_date: '2024-01-01', specialty: null }], pecosLoaded: true, optOutLoaded: true }, asOf);
    expect(ended.optedOut).toBe(false);
    expect(ended.basis).toMatch(/ended on 2024-01-01/);
    const later = medicareStatusFrom({ enrollment: enr, optOut: [{ npi: 1, optout_effective_date: '2027-01-01', optout_end_date: null, specialty: null }], pecosLoaded: true, optOutLoaded: true }, asOf);
    expect(later.optedOut).toBe(false);
    expect(later.basis).toMatch(/takes effect on 2027-01-01/);
  });
  test('tables not loaded: said, not guessed', () => {
    const s = medicareStatusFrom({ enrollment: [], optOut: [], pecosLoaded: false, optOutLoaded: false }, asOf);
    // Unknown is unknown (issue 37, item 8): null, never false.
    expect(s.enrolled).toBeNull();
    expect(s.basis).toMatch(/not loaded/);
    expect(s.basis).not.toMatch(/not found|No Medicare/);
  });
});
